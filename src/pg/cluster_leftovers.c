/* Instance directories named after their owner (pid and start time) and locked by it, so
 * that servers and copies left by a crashed or SIGKILLed verdict can be found and reaped. */
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

#define OWNER_LOCK_NAME "owner.lock"
#define EXTERNAL_SOCKET_PREFIX "/tmp/verdict-pg-"
#define MAX_LEFTOVER_PROCESSES 1024

int instance_dir_create(const char *cache_dir, const server_user *user, char *dir_out,
                        size_t outlen, int *lock_fd, char *err, size_t errlen)
{
    char instances[CLUSTER_PATH_MAX];
    snprintf(instances, sizeof instances, "%s/instances", cache_dir);
    if (make_directory_path(instances, 0755, err, errlen) != 0)
        return -1;
    /* Under a umask of 077 it would be root's alone; the server user must pass through. */
    if (user->switch_user && chmod(instances, 0755) != 0) {
        cluster_error(err, errlen, "cannot open %s to user '%s': %s", instances, user->name,
                      strerror(errno));
        return -1;
    }
    /* The name carries the owner's pid and start time: a reaper tells a live owner from a
     * dead one (or a recycled pid) without any file to read, even mid-creation. */
    pid_t self = getpid();
    char pattern[CLUSTER_PATH_MAX];
    if (snprintf(pattern, sizeof pattern, "%s/%d-%llu-XXXXXX", instances, (int)self,
                 process_start_time(self)) >= (int)sizeof pattern ||
        strlen(pattern) + INSTANCE_SUBPATH_ROOM >= outlen) {
        cluster_error(err, errlen, "cache directory path too long: %s", cache_dir);
        return -1;
    }
    if (mkdtemp(pattern) == NULL) {
        cluster_error(err, errlen, "cannot create an instance directory in %s: %s", instances,
                      strerror(errno));
        return -1;
    }
    snprintf(dir_out, outlen, "%s", pattern);
    char lock_path[CLUSTER_PATH_MAX + 16];
    snprintf(lock_path, sizeof lock_path, "%s/" OWNER_LOCK_NAME, pattern);
    /* The lock is what a reaper in another pid namespace can still see. */
    int fd = open(lock_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        cluster_error(err, errlen, "cannot lock %s: %s", lock_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        remove_tree(pattern, NULL, 0);
        return -1;
    }
    if (chmod(pattern, 0755) != 0 ||
        (user->switch_user && chown(pattern, user->uid, user->gid) != 0)) {
        cluster_error(err, errlen, "cannot hand %s to user '%s': %s", pattern, user->name,
                      strerror(errno));
        close(fd);
        remove_tree(pattern, NULL, 0);
        return -1;
    }
    *lock_fd = fd;
    return 0;
}

int instance_dir_remove(const char *instance_dir, const char *socket_dir, char *err,
                        size_t errlen)
{
    int rc = 0;
    size_t length = strlen(instance_dir);
    if (socket_dir != NULL && socket_dir[0] != '\0' &&
        !(strncmp(socket_dir, instance_dir, length) == 0 && socket_dir[length] == '/'))
        rc = remove_tree(socket_dir, err, errlen);
    if (remove_tree(instance_dir, err, errlen) != 0)
        rc = -1;
    return rc;
}

/* postmaster.pid's lines: pid, data dir, start time, port, socket dir, listen address,
 * "shmem key  shmem id", status. Returns the text of line number `line` (1-based). */
static int postmaster_pid_line(const char *data_dir, int line, char *out, size_t outlen)
{
    char path[CLUSTER_PATH_MAX + 32], text[2048];
    snprintf(path, sizeof path, "%s/postmaster.pid", data_dir);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
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

void remove_orphaned_shared_memory(const char *data_dir)
{
    char line[256];
    if (postmaster_pid_line(data_dir, 7, line, sizeof line) != 0)
        return;
    unsigned long key = 0, id = 0;
    if (sscanf(line, "%lu %lu", &key, &id) != 2 || key == 0)
        return;
    struct shmid_ds info;
    /* PostgreSQL keeps a small SysV segment as an interlock; a SIGKILLed postmaster leaves
     * it behind. Only an unattached segment with the recorded key is ours to remove. */
    if (shmctl((int)id, IPC_STAT, &info) == 0 && (unsigned long)info.shm_perm.__key == key &&
        info.shm_nattch == 0)
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
static void read_external_socket_dir(const char *instance_dir, char *out, size_t outlen)
{
    out[0] = '\0';
    char path[CLUSTER_PATH_MAX + 32], text[CLUSTER_PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/instance.txt", instance_dir);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    while (fgets(text, sizeof text, f) != NULL) {
        text[strcspn(text, "\n")] = '\0';
        const char *value = text + strlen("socket_dir=");
        if (strncmp(text, "socket_dir=", strlen("socket_dir=")) == 0 &&
            strncmp(value, EXTERNAL_SOCKET_PREFIX, strlen(EXTERNAL_SOCKET_PREFIX)) == 0 &&
            strchr(value + strlen(EXTERNAL_SOCKET_PREFIX), '/') == NULL)
            (void)path_format(out, outlen, "%s", value);
    }
    fclose(f);
}

/* Stops whatever still runs in one dead owner's instance and removes it. */
static int reap_instance(const char *instance_dir, char *err, size_t errlen)
{
    char data_dir[CLUSTER_PATH_MAX + 8], line[64];
    snprintf(data_dir, sizeof data_dir, "%s/data", instance_dir);
    pid_t postmaster = 0;
    if (postmaster_pid_line(data_dir, 1, line, sizeof line) == 0) {
        /* Trust the recorded pid only if that process really works in this directory:
         * after a reboot it may belong to anyone. */
        pid_t recorded = (pid_t)strtol(line, NULL, 10);
        pid_t in_dir[MAX_LEFTOVER_PROCESSES];
        size_t n = processes_in_dir(data_dir, in_dir, MAX_LEFTOVER_PROCESSES);
        for (size_t i = 0; i < n; i++)
            if (in_dir[i] == recorded)
                postmaster = recorded;
    }
    /* No fast shutdown: the copy is thrown away, so immediate is the right first step. */
    if (stop_server_processes(postmaster, data_dir, 0.0, err, errlen) != 0)
        return -1;
    remove_orphaned_shared_memory(data_dir);
    char socket_dir[CLUSTER_PATH_MAX];
    read_external_socket_dir(instance_dir, socket_dir, sizeof socket_dir);
    return instance_dir_remove(instance_dir, socket_dir, err, errlen);
}

int cluster_reap_leftovers(const char *cache_dir, int *reaped, char *err, size_t errlen)
{
    *reaped = 0;
    char instances[CLUSTER_PATH_MAX];
    snprintf(instances, sizeof instances, "%s/instances", cache_dir);
    DIR *listing = opendir(instances);
    if (listing == NULL) {
        if (errno == ENOENT)
            return 0;
        cluster_error(err, errlen, "cannot list %s: %s", instances, strerror(errno));
        return -1;
    }
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
        char instance_dir[CLUSTER_PATH_MAX], lock_path[CLUSTER_PATH_MAX + 16];
        if (path_format(instance_dir, sizeof instance_dir, "%s/%s", instances, entry->d_name) != 0)
            continue;
        snprintf(lock_path, sizeof lock_path, "%s/" OWNER_LOCK_NAME, instance_dir);
        /* The lock settles races: an owner in another pid namespace still holds it, and of
         * two verdicts reaping at once only one gets it. */
        int lock_fd = open(lock_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
        if (lock_fd < 0) {
            if (errno == ENOENT)
                continue; /* reaped by someone else meanwhile */
            cluster_error(err, errlen, "cannot open %s: %s", lock_path, strerror(errno));
            rc = -1;
            continue;
        }
        if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
            close(lock_fd);
            continue;
        }
        struct stat still_there;
        if (stat(instance_dir, &still_there) == 0) {
            if (reap_instance(instance_dir, err, errlen) == 0)
                (*reaped)++;
            else
                rc = -1;
        }
        close(lock_fd);
    }
    closedir(listing);
    return rc;
}
