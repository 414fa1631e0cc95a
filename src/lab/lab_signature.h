/* Signed experiments (issue 31): Ed25519 keys, the signature over what a worker executes
 * (name, text, plan hash, the verdict build it needs, its extensions), and the worker's check. */
#ifndef VERDICT_LAB_LAB_SIGNATURE_H
#define VERDICT_LAB_LAB_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "store/store.h"

/* Ed25519's sizes: a public key, and a signature. */
#define LAB_KEY_BYTES 32
#define LAB_SIGNATURE_BYTES 64

/* Makes a key pair: the private key in path (PEM, created 0600, never over an existing file)
 * and the public key in path.pub (PEM, 0644). 0, or -1 with ERROR_USAGE (a file there already,
 * a directory that is not there) or ERROR_INTERNAL. */
int lab_key_new(const char *path, verdict_error *err);

/* A private key, read for signing. */
typedef struct {
    void *key;                              /* EVP_PKEY */
    char public_hex[2 * LAB_KEY_BYTES + 1]; /* its public key, hex */
} lab_signing_key;

/* Reads a private key made by lab_key_new; ERROR_USAGE naming the file when it is missing,
 * unreadable, a public key, or not an Ed25519 private key. */
int lab_signing_key_load(const char *path, lab_signing_key *out, verdict_error *err);
void lab_signing_key_free(lab_signing_key *k);

/* Records key's signature of the experiment as e is here: its name, text, plan hash, the
 * verdict build a fleet's machine needs for it, and the extensions the store holds now. */
int lab_sign_experiment(store *db, int64_t experiment_id, const experiment *e,
                        const lab_signing_key *key, verdict_error *err);

/* The public keys a worker trusts (--trust FILE.pub, or every *.pub of a directory). */
typedef struct {
    unsigned char (*keys)[LAB_KEY_BYTES];
    char **files; /* where each came from, for messages */
    size_t n, capacity;
} lab_trust;

/* Adds the key in path, or every *.pub file of the directory path (none there: an error).
 * ERROR_USAGE naming the file that is missing or not an Ed25519 public key. */
int lab_trust_add(lab_trust *t, const char *path, verdict_error *err);
void lab_trust_free(lab_trust *t);

/* Whether a trusted key signed the stored experiment (its name, text, plan hash and build as
 * the store holds them now, and its extensions): 0, or -1 with ERROR_BAD_INPUT saying why
 * not (unsigned, signed by other keys only, its text, plan, build or extensions changed since,
 * a truncated or forged signature), or a store's error. */
int lab_check_signature(const lab_trust *t, store *db, int64_t experiment_id,
                        const store_experiment *stored, verdict_error *err);

#endif
