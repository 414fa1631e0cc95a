/* SHA-256 through OpenSSL's EVP interface: the key's tagged, length-prefixed fields, file
 * contents streamed in, and the plain digest of one file for the binaries a target ran. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "build/build_internal.h"
#include "common/hash.h"

#define READ_CHUNK (1u << 20)

int build_hasher_init(build_hasher *h, verdict_error *err)
{
    h->failed = false;
    h->ctx = EVP_MD_CTX_new();
    h->buffer = malloc(READ_CHUNK);
    if (h->ctx == NULL || h->buffer == NULL ||
        EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
        build_hasher_free(h);
        return error_set(err, ERROR_INTERNAL, "cannot start a SHA-256 digest (OpenSSL)");
    }
    return 0;
}

static void update(build_hasher *h, const void *bytes, size_t n)
{
    if (n > 0 && EVP_DigestUpdate(h->ctx, bytes, n) != 1)
        h->failed = true;
}

/* The length as 8 little-endian bytes: the same key on every machine. */
static void update_length(build_hasher *h, char tag, uint64_t n)
{
    unsigned char head[9];
    head[0] = (unsigned char)tag;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)(n >> (8 * i));
    update(h, head, sizeof head);
}

void build_hasher_field(build_hasher *h, char tag, const void *bytes, size_t n)
{
    update_length(h, tag, n);
    update(h, bytes, n);
}

void build_hasher_text(build_hasher *h, char tag, const char *text)
{
    build_hasher_field(h, tag, text, strlen(text));
}

void build_hasher_number(build_hasher *h, char tag, uint64_t value)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    build_hasher_field(h, tag, text, (size_t)n);
}

int build_hasher_file(build_hasher *h, char tag, int fd, uint64_t size, const char *name,
                      verdict_error *err)
{
    update_length(h, tag, size);
    uint64_t done = 0;
    for (;;) {
        ssize_t n = read(fd, h->buffer, READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return error_set(err, ERROR_BAD_INPUT, "cannot read %s: %s", name, strerror(errno));
        if (n == 0)
            break;
        done += (uint64_t)n;
        if (done > size)
            break;
        update(h, h->buffer, (size_t)n);
    }
    if (done != size)
        return error_set(err, ERROR_BAD_INPUT,
                         "%s changed while it was being hashed (%llu bytes, then %llu); "
                         "hash it again when it is not being written",
                         name, (unsigned long long)size, (unsigned long long)done);
    return 0;
}

int build_hasher_finish(build_hasher *h, char hex[BUILD_KEY_HEX + 1], verdict_error *err)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    if (h->failed || EVP_DigestFinal_ex(h->ctx, digest, &n) != 1 || n * 2 != BUILD_KEY_HEX)
        return error_set(err, ERROR_INTERNAL, "the SHA-256 digest failed (OpenSSL)");
    hash_hex(digest, n, hex);
    return 0;
}

void build_hasher_free(build_hasher *h)
{
    EVP_MD_CTX_free(h->ctx);
    free(h->buffer);
    h->ctx = NULL;
    h->buffer = NULL;
}

/* The digest of the bytes alone, no tag or length, so that it equals sha256sum's. */
static int digest_fd(build_hasher *h, int fd, const char *path, verdict_error *err)
{
    for (;;) {
        ssize_t n = read(fd, h->buffer, READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return error_set(err, ERROR_BAD_INPUT, "cannot read %s: %s", path, strerror(errno));
        if (n == 0)
            return 0;
        update(h, h->buffer, (size_t)n);
    }
}

int build_file_sha256(const char *path, char hex[BUILD_KEY_HEX + 1], verdict_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set(err, errno == ENOENT ? ERROR_USAGE : ERROR_BAD_INPUT,
                         "cannot open %s: %s", path, strerror(errno));
    build_hasher h;
    int rc = build_hasher_init(&h, err);
    if (rc == 0) {
        rc = digest_fd(&h, fd, path, err);
        rc = rc ? rc : build_hasher_finish(&h, hex, err);
        build_hasher_free(&h);
    }
    close(fd);
    return rc;
}
