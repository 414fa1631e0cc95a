/* Instance directories named after their owner (pid and start time), locked by it and
 * recorded in it, so that what a crashed verdict left can be found, proved ours, reaped. */
#include "pg/cluster_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

#define OWNER_LOCK_NAME "owner.lock"
#define RECORD_NAME "instance.txt"
#define EXTERNAL_SOCKET_PREFIX "/tmp/verdict-pg-"
#define MAX_LEFTOVER_PROCESSES 1024
#define RECORD_TEXT_MAX (CLUSTER_PATH_MAX + 512)

mode_t instance_dir_mode(const server_user *user)
{
    /* The server user passes through (to its data/ and socket/) but cannot list or write. */
    return user->switch_user ? 0711 : 0700;
}

int instance_record_write(int dir_fd, const instance_record *r, verdict_error *err)
{
    char text[RECORD_TEXT_MAX];
    int length = snprintf(text, sizeof text,
                          "owner_pid=%d\nowner_start=%llu\npostmaster_pid=%d\nserver_uid=%u\n"
                          "port=%d\nsocket_dir=%s\n",
                          (int)r->owner_pid, r->owner_start, (int)r->postmaster_pid,
                          (unsigned)r->server_uid, r->port, r->socket_dir);
    /* Written beside and renamed: a reaper never reads half a record. */
    int fd = openat(dir_fd, RECORD_NAME ".new", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
                                                    O_CLOEXEC, 0600);
    bool ok = fd >= 0 && length > 0 && length < (int)sizeof text &&
              write(fd, text, (size_t)length) == (ssize_t)length;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok || renameat(dir_fd, RECORD_NAME ".new", dir_fd, RECORD_NAME) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot write the instance record %s: %s", RECORD_NAME,
                  strerror(errno));
        return -1;
    }
    return 0;
}

/* Reads a record verdict wrote: a regular file of verdict's user, never through a link. */
static int instance_record_read(int dir_fd, instance_record *r)
{
    memset(r, 0, sizeof *r);
    r->server_uid = (uid_t)-1;
    int fd = openat(dir_fd, RECORD_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    FILE *f = NULL;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (f = fdopen(fd, "r")) == NULL) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char line[RECORD_TEXT_MAX];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        int pid = 0;
        unsigned uid = 0;
        if (sscanf(line, "owner_pid=%d", &pid) == 1)
            r->owner_pid = (pid_t)pid;
        else if (sscanf(line, "owner_start=%llu", &r->owner_start) == 1)
            continue;
        else if (sscanf(line, "postmaster_pid=%d", &pid) == 1)
            r->postmaster_pid = (pid_t)pid;
        else if (sscanf(line, "server_uid=%u", &uid) == 1)
            r->server_uid = (uid_t)uid;
        else if (sscanf(line, "port=%d", &r->port) == 1)
            continue;
        else if (strncmp(line, "socket_dir=", 11) == 0)
            (void)path_format(r->socket_dir, sizeof r->socket_dir, "%s", line + 11);
    }
    fclose(f);
    return 0;
}

/* The directory exists, the lock is ours, the record names us: the rest may fail. */
static int instance_dir_fill(int dir_fd, const server_user *user, int *lock_fd, verdict_error *err)
{
    /* The lock is what a reaper in another pid namespace can still see. */
    int fd = openat(dir_fd, OWNER_LOCK_NAME, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                                 O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot lock " OWNER_LOCK_NAME ": %s",
                  strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *lock_fd = fd;
    instance_record record = {.owner_pid = getpid(), .owner_start = process_start_time(getpid()),
                              .server_uid = user->uid};
    return instance_record_write(dir_fd, &record, err);
}

int instance_dir_create(const cluster_cache *cache, int instances_fd, const server_user *user,
                        char *dir_out, size_t outlen, int *dir_fd, int *lock_fd, verdict_error *err)
{
    *dir_fd = *lock_fd = -1;
    /* The name carries the owner's pid and start time: a reaper tells a live owner from a
     * dead one (or a recycled pid) without any file to read. */
    char prefix[64], name[96];
    snprintf(prefix, sizeof prefix, "%d-%llu-", (int)getpid(), process_start_time(getpid()));
    if (cache_make_unique_dir(instances_fd, prefix, instance_dir_mode(user), name,
                              sizeof name) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot create an instance directory in "
                  "%s/instances: %s", cache->path, strerror(errno));
        return -1;
    }
    if (path_format(dir_out, outlen, "%s/instances/%s", cache->path, name) != 0 ||
        strlen(dir_out) + INSTANCE_SUBPATH_ROOM >= outlen) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory path too long: %s", cache->path);
        unlinkat(instances_fd, name, AT_REMOVEDIR);
        return -1;
    }
    *dir_fd = openat(instances_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*dir_fd < 0 || instance_dir_fill(*dir_fd, user, lock_fd, err) != 0) {
        if (*dir_fd < 0)
            error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", dir_out, strerror(errno));
        if (*dir_fd >= 0)
            close(*dir_fd);
        if (*lock_fd >= 0)
            close(*lock_fd);
        *dir_fd = *lock_fd = -1;
        remove_tree(dir_out, NULL);
        return -1;
    }
    return 0;
}

int instance_dir_remove(const char *instance_dir, const char *socket_dir, verdict_error *err)
{
    int rc = 0;
    size_t length = strlen(instance_dir);
    if (socket_dir != NULL && socket_dir[0] != '\0' &&
        !(strncmp(socket_dir, instance_dir, length) == 0 && socket_dir[length] == '/'))
        rc = remove_tree(socket_dir, err);
    if (remove_tree(instance_dir, err) != 0)
        rc = -1;
    return rc;
}

/* postmaster.pid's lines: pid, data dir, start time, port, socket dir, listen address,
 * "shmem key  shmem id", status. Returns the text of line number `line` (1-based). */
static int postmaster_pid_line(const char *data_dir, int line, char *out, size_t outlen)
{
    char path[CLUSTER_PATH_MAX + 32], text[2048];
    snprintf(path, sizeof path, "%s/postmaster.pid", data_dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n < 0)
        return -1;
    text[n] = '\0';
    char *cursor = text;
    for (int i = 1; i < line; i++) {
        cursor = strchr(cursor, '\n');
        if (cursor == NULL)
            return -1;
        cursor++;
    }
    size_t length = strcspn(cursor, "\n");
    if (length >= outlen)
        length = outlen - 1;
    memcpy(out, cursor, length);
    out[length] = '\0';
    return 0;
}

void remove_orphaned_shared_memory(const char *data_dir, pid_t creator, uid_t owner)
{
    char line[256];
    if (creator <= 0 || postmaster_pid_line(data_dir, 7, line, sizeof line) != 0)
        return;
    unsigned long key = 0, id = 0;
    if (sscanf(line, "%lu %lu", &key, &id) != 2 || key == 0)
        return;
    struct shmid_ds info;
    /* PostgreSQL keeps a small SysV segment as an interlock; a SIGKILLed postmaster leaves
     * it behind. postmaster.pid is the server's to write (or anyone's, in a cache that was
     * not private), so it only says where to look: the segment is removed only when the
     * postmaster verdict started (its pid, recorded by verdict) created it as the server
     * user, it has the recorded key, and nothing is attached. */
    if (shmctl((int)id, IPC_STAT, &info) == 0 && (unsigned long)info.shm_perm.__key == key &&
        info.shm_cpid == creator && info.shm_perm.cuid == owner && info.shm_nattch == 0)
        shmctl((int)id, IPC_RMID, NULL);
}

/* OWNERPID-STARTTIME-XXXXXX; returns 0 when name has that shape. */
static int parse_instance_name(const char *name, pid_t *owner, unsigned long long *start)
{
    char *end;
    long pid = strtol(name, &end, 10);
    if (end == name || *end != '-' || pid <= 0)
        return -1;
    const char *start_text = end + 1;
    unsigned long long start_time = strtoull(start_text, &end, 10);
    if (end == start_text || *end != '-' || strlen(end + 1) != 6)
        return -1;
    *owner = (pid_t)pid;
    *start = start_time;
    return 0;
}

/* The socket directory an instance recorded when it was outside the instance directory;
 * only ever one of verdict's own /tmp/verdict-pg-XXXXXX directories. */
static void external_socket_dir(const instance_record *r, char *out, size_t outlen)
{
    const char *value = r->socket_dir;
    out[0] = '\0';
    if (strncmp(value, EXTERNAL_SOCKET_PREFIX, strlen(EXTERNAL_SOCKET_PREFIX)) == 0 &&
        strlen(value) == strlen(EXTERNAL_SOCKET_PREFIX) + 6 &&
        strchr(value + strlen(EXTERNAL_SOCKET_PREFIX), '/') == NULL)
        (void)path_format(out, outlen, "%s", value);
}

/* Stops whatever still runs in one dead owner's instance and removes it. */
static int reap_instance(const char *instance_dir, const instance_record *record,
                         verdict_error *err)
{
    char data_dir[CLUSTER_PATH_MAX + 8], line[64];
    snprintf(data_dir, sizeof data_dir, "%s/data", instance_dir);
    /* The postmaster verdict recorded, or else the one postmaster.pid names; either only
     * if that process really works in this directory: after a reboot it may be anyone. */
    pid_t candidate = record->postmaster_pid;
    if (candidate <= 0 && postmaster_pid_line(data_dir, 1, line, sizeof line) == 0)
        candidate = (pid_t)strtol(line, NULL, 10);
    pid_t postmaster = 0, in_dir[MAX_LEFTOVER_PROCESSES];
    size_t n = processes_in_dir(data_dir, in_dir, MAX_LEFTOVER_PROCESSES);
    for (size_t i = 0; i < n; i++)
        if (in_dir[i] == candidate)
            postmaster = candidate;
    /* No fast shutdown: the copy is thrown away, so immediate is the right first step. */
    if (stop_server_processes(postmaster, data_dir, 0.0, record->postmaster_pid,
                              record->server_uid, err) != 0)
        return -1;
    remove_orphaned_shared_memory(data_dir, record->postmaster_pid, record->server_uid);
    char socket_dir[CLUSTER_PATH_MAX];
    external_socket_dir(record, socket_dir, sizeof socket_dir);
    return instance_dir_remove(instance_dir, socket_dir, err);
}

/* What proves a directory in instances/ is a leftover of verdict's: a directory of
 * verdict's user that no one else may write, holding owner.lock, a plain file of that
 * user, which nobody holds. Then *lock_fd holds it and *record is read (it may be empty:
 * a crash right after the lock). Anything else is left alone. */
static bool lock_proven_leftover(int instances_fd, const char *name, pid_t owner,
                                 unsigned long long start, int *lock_fd,
                                 instance_record *record)
{
    *lock_fd = -1;
    int dir_fd = openat(instances_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dir_fd < 0 || fstat(dir_fd, &st) != 0 ||
        cache_check_own_directory(&st, name, NULL) != 0) {
        if (dir_fd >= 0)
            close(dir_fd);
        return false;
    }
    int fd = openat(dir_fd, OWNER_LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    bool proven = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                  st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (proven && instance_record_read(dir_fd, record) == 0)
        proven = record->owner_pid == owner && record->owner_start == start;
    close(dir_fd);
    if (!proven && fd >= 0)
        close(fd);
    if (proven)
        *lock_fd = fd;
    return proven;
}

/* Port lock files of dead verdicts: nobody holds them, so they go. */
static void sweep_port_locks(const cluster_cache *cache)
{
    int ports_fd = -1;
    if (cache_subdir(cache->root_fd, cache->path, "ports", 0700, false, &ports_fd, NULL) != 0)
        return;
    int listing_fd = dup(ports_fd);
    DIR *listing = listing_fd >= 0 ? fdopendir(listing_fd) : NULL;
    struct dirent *entry;
    while (listing != NULL && (entry = readdir(listing)) != NULL) {
        int port = 0, fd = -1;
        char tail[8] = "";
        if (sscanf(entry->d_name, "%d.loc%1s", &port, tail) != 2 || strcmp(tail, "k") != 0)
            continue;
        if (lock_file_acquire(ports_fd, entry->d_name, false, &fd) == 0)
            lock_file_release(ports_fd, entry->d_name, fd);
    }
    if (listing != NULL)
        closedir(listing);
    else if (listing_fd >= 0)
        close(listing_fd);
    close(ports_fd);
}

static int reap_listed(const cluster_cache *cache, int instances_fd, DIR *listing,
                       int *reaped, verdict_error *err)
{
    int rc = 0;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        pid_t owner;
        unsigned long long start;
        if (parse_instance_name(entry->d_name, &owner, &start) != 0)
            continue;
        unsigned long long owner_start = process_start_time(owner);
        if (owner_start != 0 && owner_start == start)
            continue; /* its owner lives */
        /* The lock settles races: an owner in another pid namespace still holds it, and of
         * two verdicts reaping at once only one gets it. */
        int lock_fd;
        instance_record record;
        if (!lock_proven_leftover(instances_fd, entry->d_name, owner, start, &lock_fd, &record))
            continue;
        char instance_dir[CLUSTER_PATH_MAX];
        if (path_format(instance_dir, sizeof instance_dir, "%s/instances/%s", cache->path,
                        entry->d_name) == 0) {
            if (reap_instance(instance_dir, &record, err) == 0)
                (*reaped)++;
            else
                rc = -1;
        }
        close(lock_fd);
    }
    return rc;
}

int cluster_reap_leftovers(const char *cache_dir, int *reaped, verdict_error *err)
{
    *reaped = 0;
    struct stat st;
    if (lstat(cache_dir, &st) != 0 && errno == ENOENT)
        return 0; /* no cache, no leftovers */
    cluster_cache cache;
    if (cache_open(cache_dir, NULL, &cache, err) != 0)
        return -1;
    int rc = reap_in_cache(&cache, reaped, err);
    cache_close(&cache);
    return rc;
}

int reap_in_cache(const cluster_cache *cache, int *reaped, verdict_error *err)
{
    *reaped = 0;
    int instances_fd = -1;
    int found = cache_subdir(cache->root_fd, cache->path, "instances", 0700, false,
                             &instances_fd, err);
    if (found != 0)
        return found == 1 ? 0 : -1;
    int listing_fd = dup(instances_fd);
    DIR *listing = listing_fd >= 0 ? fdopendir(listing_fd) : NULL;
    int rc = -1;
    if (listing == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot list %s/instances: %s", cache->path,
                  strerror(errno));
        if (listing_fd >= 0)
            close(listing_fd);
    } else {
        rc = reap_listed(cache, instances_fd, listing, reaped, err);
        closedir(listing);
    }
    close(instances_fd);
    sweep_port_locks(cache);
    return rc;
}
