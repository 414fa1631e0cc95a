/* Signed experiments (issue 31): Ed25519 key pairs in PEM files, signatures over what a
 * worker executes, and the worker's check of them against the keys its operator trusts. */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "lab/lab_signature.h"
#include "lab/lab_store.h"

#define SHA256_HEX 64

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Exactly 2n lowercase hex digits into n bytes; false for anything else (a truncated
 * signature). */
static bool from_hex(const char *hex, unsigned char *bytes, size_t n)
{
    if (strlen(hex) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0)
            return false;
        bytes[i] = (unsigned char)(high << 4 | low);
    }
    return true;
}

/* A plan hash as the store keeps it: 16 hex digits. */
static void plan_text(uint64_t plan_hash, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, plan_hash);
}

static int sha256_hex(const char *text, size_t length, char hex[SHA256_HEX + 1],
                      verdict_error *err)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (EVP_Digest(text, length, digest, &n, EVP_sha256(), NULL) != 1 || n * 2 != SHA256_HEX)
        return error_set(err, ERROR_INTERNAL, "OpenSSL could not compute a SHA-256");
    hash_hex(digest, n, hex);
    return 0;
}

/* What is signed: every field on a line of its own, the name with its length, so that no two
 * experiments' fields run together into the same bytes. */
static char *signed_message(const char *name, const store_signature *g)
{
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "verdict signed experiment 1\nname %zu %s\ntext-sha256 %s\nplan %s\n"
                   "build %s\nextensions %s\n", strlen(name), name, g->text_sha256,
                   g->plan_hash, g->tool_build, g->extensions);
    if (strbuf_status(&b) != 0) {
        strbuf_free(&b);
        return NULL;
    }
    return strbuf_detach(&b);
}

/* ---- keys ---- */

static int public_hex_of(EVP_PKEY *key, char hex[2 * LAB_KEY_BYTES + 1])
{
    unsigned char raw[LAB_KEY_BYTES];
    size_t n = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key, raw, &n) != 1 || n != LAB_KEY_BYTES)
        return -1;
    hash_hex(raw, n, hex);
    return 0;
}

/* Writes one PEM file, created with mode (never over an existing file). */
static int write_pem(const char *path, mode_t mode, EVP_PKEY *key, bool private_key,
                     verdict_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return error_set(err, ERROR_USAGE, "%s: %s%s", path, strerror(errno),
                         errno == EEXIST ? " (verdict key new never replaces a key)" : "");
    FILE *f = fdopen(fd, "w");
    int ok = f != NULL && (private_key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL)
                                       : PEM_write_PUBKEY(f, key));
    if (f == NULL)
        close(fd);
    else if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        unlink(path);
        return error_set(err, ERROR_INTERNAL, "%s: could not write the key", path);
    }
    return 0;
}

int lab_key_new(const char *path, verdict_error *err)
{
    assert(path != NULL);
    int rc = -1;
    char *public_path = NULL;
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    if (key == NULL) {
        error_set(err, ERROR_INTERNAL, "OpenSSL could not make an Ed25519 key");
        goto done;
    }
    if (asprintf(&public_path, "%s.pub", path) < 0) {
        public_path = NULL;
        error_no_memory(err);
        goto done;
    }
    if (write_pem(path, 0600, key, true, err) != 0)
        goto done;
    if (write_pem(public_path, 0644, key, false, err) != 0) {
        unlink(path);
        goto done;
    }
    rc = 0;
done:
    free(public_path);
    EVP_PKEY_free(key);
    return rc;
}

/* The first line of a PEM file, to say what it holds when it is not what was asked for. */
static bool holds_public_key(FILE *f)
{
    char line[64] = "";
    rewind(f);
    return fgets(line, sizeof line, f) != NULL && strstr(line, "PUBLIC KEY") != NULL;
}

int lab_signing_key_load(const char *path, lab_signing_key *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return error_set(err, ERROR_USAGE, "--sign %s: %s (make a key with: verdict key new "
                         "FILE)", path, strerror(errno));
    EVP_PKEY *key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    bool is_public = key == NULL && holds_public_key(f);
    fclose(f);
    if (key == NULL || EVP_PKEY_id(key) != EVP_PKEY_ED25519 ||
        public_hex_of(key, out->public_hex) != 0) {
        EVP_PKEY_free(key);
        return error_set(err, ERROR_USAGE, "--sign %s: %s", path,
                         is_public ? "a public key; signing needs the private key (the file "
                                     "without .pub)"
                                   : "not an Ed25519 private key made by verdict key new");
    }
    out->key = key;
    return 0;
}

void lab_signing_key_free(lab_signing_key *k)
{
    EVP_PKEY_free(k->key);
    k->key = NULL;
}

/* ---- signing ---- */

static int append_extension(void *context, long blocks)
{
    strbuf *b = context;
    strbuf_appendf(b, "%s%ld", strbuf_text(b)[0] ? "," : "", blocks);
    return 0;
}

/* The extensions as the store holds them now: "10,20", or "" (malloc'ed). */
static char *extensions_text(store *db, int64_t experiment_id, verdict_error *err)
{
    strbuf b = STRBUF_INIT;
    strbuf_append(&b, "");
    if (store_for_each_extension(db, experiment_id, append_extension, &b, err) != 0) {
        strbuf_free(&b);
        return NULL;
    }
    if (strbuf_status(&b) != 0) {
        strbuf_free(&b);
        error_no_memory(err);
        return NULL;
    }
    return strbuf_detach(&b);
}

static int sign_message(EVP_PKEY *key, const char *message, char hex[2 * LAB_SIGNATURE_BYTES + 1],
                        verdict_error *err)
{
    unsigned char raw[LAB_SIGNATURE_BYTES];
    size_t n = sizeof raw;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestSign(ctx, raw, &n, (const unsigned char *)message, strlen(message)) == 1 &&
             n == sizeof raw;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return error_set(err, ERROR_INTERNAL, "OpenSSL could not sign the experiment");
    hash_hex(raw, n, hex);
    return 0;
}

int lab_sign_experiment(store *db, int64_t experiment_id, const experiment *e,
                        const lab_signing_key *key, verdict_error *err)
{
    assert(db != NULL && e != NULL && key != NULL && key->key != NULL);
    char text_sha[SHA256_HEX + 1], plan[17], build[17], signature[2 * LAB_SIGNATURE_BYTES + 1];
    char *message = NULL;
    char *extensions = extensions_text(db, experiment_id, err);
    int rc = -1;
    if (extensions == NULL || sha256_hex(e->text, e->text_length, text_sha, err) != 0)
        goto done;
    plan_text(experiment_plan_hash(e), plan);
    lab_build_needed(e, build);
    store_signature g = {.public_key = key->public_hex, .signature = signature,
                         .text_sha256 = text_sha, .plan_hash = plan, .tool_build = build,
                         .extensions = extensions};
    message = signed_message(e->name, &g);
    if (message == NULL) {
        error_no_memory(err);
        goto done;
    }
    if (sign_message(key->key, message, signature, err) != 0)
        goto done;
    rc = store_sign_experiment(db, experiment_id, &g, err);
done:
    free(message);
    free(extensions);
    return rc;
}

/* ---- trust ---- */

static int trust_file(lab_trust *t, const char *path, verdict_error *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return error_set(err, ERROR_USAGE, "--trust %s: %s", path, strerror(errno));
    EVP_PKEY *key = PEM_read_PUBKEY(f, NULL, NULL, NULL);
    fclose(f);
    size_t n = LAB_KEY_BYTES;
    int rc = -1;
    /* keys and files grow together: files is realloc'ed to the keys' capacity */
    char **files = NULL;
    if (array_reserve((void **)&t->keys, &t->capacity, t->n + 1, sizeof *t->keys) != 0 ||
        (files = realloc(t->files, t->capacity * sizeof *t->files)) == NULL) {
        error_no_memory(err);
        goto done;
    }
    t->files = files;
    if (key == NULL || EVP_PKEY_id(key) != EVP_PKEY_ED25519 ||
        EVP_PKEY_get_raw_public_key(key, t->keys[t->n], &n) != 1 || n != LAB_KEY_BYTES) {
        error_set(err, ERROR_USAGE, "--trust %s: not an Ed25519 public key (the FILE.pub of "
                  "verdict key new FILE)", path);
        goto done;
    }
    if ((t->files[t->n] = strdup(path)) == NULL) {
        error_no_memory(err);
        goto done;
    }
    t->n++;
    rc = 0;
done:
    EVP_PKEY_free(key);
    return rc;
}

static bool ends_with_pub(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".pub") == 0;
}

/* Every *.pub of the directory, in name order so that messages do not vary. */
static int trust_directory(lab_trust *t, const char *path, verdict_error *err)
{
    struct dirent **entries = NULL;
    int n = scandir(path, &entries, NULL, alphasort);
    if (n < 0)
        return error_set(err, ERROR_USAGE, "--trust %s: %s", path, strerror(errno));
    size_t before = t->n;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && ends_with_pub(entries[i]->d_name)) {
            char *file = NULL;
            if (asprintf(&file, "%s/%s", path, entries[i]->d_name) < 0)
                rc = error_no_memory(err);
            else
                rc = trust_file(t, file, err);
            free(file);
        }
        free(entries[i]);
    }
    free(entries);
    if (rc == 0 && t->n == before)
        return error_set(err, ERROR_USAGE, "--trust %s: a directory without a public key "
                         "(*.pub) in it", path);
    return rc;
}

int lab_trust_add(lab_trust *t, const char *path, verdict_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return trust_directory(t, path, err);
    return trust_file(t, path, err);
}

void lab_trust_free(lab_trust *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->files[i]);
    free(t->files);
    free(t->keys);
    memset(t, 0, sizeof *t);
}

/* ---- the worker's check ---- */

/* What the worker knows of one experiment while it looks at its signatures. */
typedef struct {
    const lab_trust *trust;
    const store_experiment *stored;
    const char *text_sha, *plan, *extensions;
    size_t signatures;
    bool trusted;                /* a trusted key's signature checked out */
    verdict_error why;           /* else why the best candidate was refused */
    bool why_set;
} check_state;

static const char *trusted_file(const lab_trust *t, const char *public_hex)
{
    unsigned char raw[LAB_KEY_BYTES];
    if (!from_hex(public_hex, raw, sizeof raw))
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (memcmp(t->keys[i], raw, sizeof raw) == 0)
            return t->files[i];
    return NULL;
}

/* Which part of what the signer signed differs from what the store holds now. */
static int say_changed(check_state *c, const char *file, const store_signature *g)
{
    verdict_error *err = &c->why;
    const char *name = c->stored->name;
    if (strcmp(g->text_sha256, c->text_sha) != 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: its text in the store is not the text the "
                         "key %s signed (changed since it was signed)", name, file);
    if (strcmp(g->plan_hash, c->plan) != 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: the key %s signed plan %s; the store says "
                         "plan %s", name, file, g->plan_hash, c->plan);
    const char *build = c->stored->tool_build ? c->stored->tool_build : "";
    if (strcmp(g->tool_build, build) != 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: the key %s signed it for verdict build %s; "
                         "the store says it needs build %s", name, file,
                         g->tool_build[0] ? g->tool_build : "(none)", build[0] ? build : "(none)");
    if (strcmp(g->extensions, c->extensions) != 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: extended (--more) to [%s] blocks per point "
                         "since the key %s signed it at [%s]; sign the extension with --sign",
                         name, c->extensions, file, g->extensions);
    return 0;
}

static bool verifies(const char *public_hex, const char *message, const unsigned char *raw)
{
    unsigned char key_raw[LAB_KEY_BYTES];
    if (!from_hex(public_hex, key_raw, sizeof key_raw))
        return false;
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, key_raw, sizeof key_raw);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = key != NULL && ctx != NULL &&
              EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 &&
              EVP_DigestVerify(ctx, raw, LAB_SIGNATURE_BYTES, (const unsigned char *)message,
                               strlen(message)) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

/* One signature: trusted and good ends the search; otherwise its reason is kept. */
static int look_at_signature(void *context, const store_signature *g)
{
    check_state *c = context;
    c->signatures++;
    const char *file = trusted_file(c->trust, g->public_key);
    if (file == NULL || c->trusted)
        return 0;
    unsigned char raw[LAB_SIGNATURE_BYTES];
    c->why_set = true;
    error_clear(&c->why);
    if (!from_hex(g->signature, raw, sizeof raw)) {
        error_set(&c->why, ERROR_BAD_INPUT, "%s: the signature by the key %s is truncated or "
                  "damaged (%zu characters; an Ed25519 signature is %d hex digits)",
                  c->stored->name, file, strlen(g->signature), 2 * LAB_SIGNATURE_BYTES);
        return 0;
    }
    if (say_changed(c, file, g) != 0)
        return 0;
    char *message = signed_message(c->stored->name, g);
    if (message == NULL)
        return -1;
    c->trusted = verifies(g->public_key, message, raw);
    free(message);
    if (!c->trusted)
        error_set(&c->why, ERROR_BAD_INPUT, "%s: the signature by the key %s does not verify "
                  "(forged, or damaged in the store)", c->stored->name, file);
    return 0;
}

static int refuse(const check_state *c, verdict_error *err)
{
    if (c->why_set) {
        error_copy(err, &c->why);
        return -1;
    }
    if (c->signatures == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: not signed (its owner signs it with verdict "
                         "run FILE --store STORE --sign KEY)", c->stored->name);
    return error_set(err, ERROR_BAD_INPUT, "%s: signed only by keys this worker does not trust "
                     "(%zu signature%s; --trust names the keys it trusts)", c->stored->name,
                     c->signatures, c->signatures == 1 ? "" : "s");
}

int lab_check_signature(const lab_trust *t, store *db, int64_t experiment_id,
                        const store_experiment *stored, verdict_error *err)
{
    assert(t != NULL && db != NULL && stored != NULL);
    char text_sha[SHA256_HEX + 1], plan[17];
    char *extensions = extensions_text(db, experiment_id, err);
    if (extensions == NULL || sha256_hex(stored->text, stored->text_length, text_sha, err) != 0) {
        free(extensions);
        return -1;
    }
    plan_text(stored->plan_hash, plan);
    check_state c = {.trust = t, .stored = stored, .text_sha = text_sha, .plan = plan,
                     .extensions = extensions};
    int rc = store_for_each_signature(db, experiment_id, look_at_signature, &c, err);
    if (rc > 0 || (rc < 0 && err->kind == ERROR_NONE))
        rc = error_no_memory(err);
    else if (rc == 0 && !c.trusted)
        rc = refuse(&c, err);
    free(extensions);
    return rc;
}
