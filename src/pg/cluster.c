/* Throwaway PostgreSQL clusters: templates keyed by build, settings and scale; instances
 * copied from them, started on a private socket and reserved port, checkpointed, stopped. */
#include "pg/cluster.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "pg/cluster_internal.h"

/* Bump when the template's recipe changes, so old templates are not reused. */
#define TEMPLATE_RECIPE "verdict-pg-template/2"
#define START_TIMEOUT 120.0
#define FAST_STOP_TIMEOUT 60.0
#define INITDB_TIMEOUT 600.0
/* A data generator may run long: an analytic scale factor of 1 takes minutes here. */
#define INIT_SQL_TIMEOUT 7200.0
#define READY_POLL_SECONDS 0.002
#define PORT_FIRST 16000
#define PORT_COUNT 16000
/* sun_path holds 108 bytes; PostgreSQL adds "/.s.PGSQL.NNNNN.lock". */
#define SOCKET_DIR_MAX 80
#define ERROR_TAIL 1200
#define KEY_TEXT_MAX 65536
#define LAUNCHER_MAX 32

/* What every entry point needs, resolved once: the bindir, the server user, and the cache
 * with its three directories held open (everything below is opened from these). */
typedef struct {
    char bindir[CLUSTER_PATH_MAX];
    cluster_cache cache;
    int instances_fd, ports_fd, templates_fd;
    server_user user;
    const cpu_set_t *server_cpus;
    const char *const *launcher; /* cluster_start's: a template's server runs plain */
} cluster_context;

static int program_path(const char *bindir, const char *program, char *out, size_t outlen)
{
    return path_format(out, outlen, "%s/%s", bindir, program);
}

static void context_release(cluster_context *context)
{
    int *fds[] = {&context->instances_fd, &context->ports_fd, &context->templates_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    cache_close(&context->cache);
}

static int check_bindir(const cluster_template_spec *spec, cluster_context *context,
                        verdict_error *err)
{
    /* Absolute, because PostgreSQL's programs run from "/". */
    if (realpath(spec->bindir, context->bindir) == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "PostgreSQL bindir %s: %s", spec->bindir,
                  strerror(errno));
        return -1;
    }
    static const char *const needed[] = {"postgres", "initdb", "pgbench"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        char path[CLUSTER_PATH_MAX];
        if (program_path(context->bindir, needed[i], path, sizeof path) != 0 ||
            access(path, X_OK) != 0) {
            error_set(err, ERROR_COMMAND_FAILED, "%s is not a PostgreSQL bindir: no executable %s",
                      spec->bindir, needed[i]);
            return -1;
        }
    }
    return 0;
}

/* The cache, made when missing: private to verdict's user, except that when the server
 * runs as another user (verdict is root) it may pass through the directories on the way
 * to its own data and socket directories (0711: search, no listing, no writing). */
static int open_cache(const cluster_template_spec *spec, cluster_context *context,
                      verdict_error *err)
{
    bool shared = context->user.switch_user;
    cache_create create = {shared ? 0755 : 0700, shared ? 0711 : 0700};
    if (cache_open(spec->cache_dir, &create, &context->cache, err) != 0)
        return -1;
    const cluster_cache *cache = &context->cache;
    if (cache_subdir(cache->root_fd, cache->path, "instances", instance_dir_mode(&context->user),
                     true, &context->instances_fd, err) != 0 ||
        cache_subdir(cache->root_fd, cache->path, "ports", 0700, true, &context->ports_fd,
                     err) != 0 ||
        cache_subdir(cache->root_fd, cache->path, "templates", 0700, true,
                     &context->templates_fd, err) != 0)
        return -1;
    return 0;
}

/* The server user runs the bindir's programs: a build in root's cache under /root (mode 0700
 * on Debian) is out of its reach, which exec would only say as "Permission denied". */
static int check_bindir_reachable(const cluster_context *context, verdict_error *err)
{
    if (server_user_check_access(&context->user, context->bindir, err) == 0)
        return 0;
    error_clear(err);
    return error_set(err, ERROR_USAGE, "the server user '%s' cannot reach the PostgreSQL "
                     "bindir %s: every directory above it must be searchable by it (a build "
                     "in root's cache under /root is not: build into a cache it can reach, "
                     "VERDICT_CACHE=/var/cache/verdict, or let it search /root: chmod o+x "
                     "/root)", context->user.name, context->bindir);
}

static int context_resolve(const cluster_template_spec *spec, cluster_context *context,
                           verdict_error *err)
{
    memset(context, 0, sizeof *context);
    context->cache.root_fd = context->instances_fd = context->ports_fd = -1;
    context->templates_fd = -1;
    if (spec == NULL || spec->bindir == NULL || spec->cache_dir == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "the cluster spec needs a bindir and a cache "
                  "directory");
        return -1;
    }
    context->server_cpus = spec->server_cpus;
    if (check_bindir(spec, context, err) != 0 ||
        server_user_resolve(spec->run_as, &context->user, err) != 0 ||
        check_bindir_reachable(context, err) != 0 || open_cache(spec, context, err) != 0) {
        context_release(context);
        return -1;
    }
    return 0;
}

/* Settings verdict sets itself, or that would move files out of the throwaway copy. */
static const char *const reserved_settings[] = {
    "port", "listen_addresses", "unix_socket_directories", "data_directory",
    "config_file", "hba_file", "ident_file",
};

static int check_setting(const char *line, verdict_error *err)
{
    const char *equals = strchr(line, '=');
    size_t name_length = equals != NULL ? (size_t)(equals - line) : 0;
    while (name_length > 0 && line[name_length - 1] == ' ')
        name_length--;
    if (equals == NULL || name_length == 0) {
        error_set(err, ERROR_COMMAND_FAILED, "setting '%s' is not name=value", line);
        return -1;
    }
    for (size_t i = 0; i < name_length; i++) {
        char c = line[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.')) {
            error_set(err, ERROR_COMMAND_FAILED, "setting '%s': the name may hold letters, "
                      "digits, _ and .", line);
            return -1;
        }
    }
    if (strchr(equals, '\n') != NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "setting '%.*s': the value spans lines",
                  (int)name_length, line);
        return -1;
    }
    for (size_t i = 0; i < sizeof reserved_settings / sizeof reserved_settings[0]; i++)
        if (strlen(reserved_settings[i]) == name_length &&
            strncasecmp(line, reserved_settings[i], name_length) == 0) {
            error_set(err, ERROR_COMMAND_FAILED, "setting '%s': verdict sets %s itself (private "
                      "socket, no TCP)", line, reserved_settings[i]);
            return -1;
        }
    return 0;
}

/* "name = 'value'": quoting makes any value valid syntax (numbers, units, lists); a value
 * the user already quoted is kept as given. */
static int format_setting(const char *line, char *out, size_t outlen)
{
    const char *equals = strchr(line, '=');
    size_t name_length = (size_t)(equals - line);
    while (name_length > 0 && line[name_length - 1] == ' ')
        name_length--;
    const char *value = equals + 1;
    while (*value == ' ')
        value++;
    size_t value_length = strlen(value);
    while (value_length > 0 && value[value_length - 1] == ' ')
        value_length--;
    int written = snprintf(out, outlen, "%.*s = ", (int)name_length, line);
    if (written < 0 || (size_t)written >= outlen)
        return -1;
    size_t used = (size_t)written;
    bool quoted = value_length >= 2 && value[0] == '\'' && value[value_length - 1] == '\'';
    /* Worst case: every character doubled, two quotes, a newline and the NUL. */
    if (used + 2 * value_length + 4 > outlen)
        return -1;
    if (!quoted)
        out[used++] = '\'';
    for (size_t i = 0; i < value_length; i++) {
        if (value[i] == '\'' && !quoted)
            out[used++] = '\'';
        out[used++] = value[i];
    }
    if (!quoted)
        out[used++] = '\'';
    out[used++] = '\n';
    out[used] = '\0';
    return 0;
}

static int append_text(char *buffer, size_t size, size_t *used, const char *text)
{
    size_t length = strlen(text);
    if (*used + length + 1 > size)
        return -1;
    memcpy(buffer + *used, text, length + 1);
    *used += length;
    return 0;
}

/* "init=HASH LENGTH" of the init SQL's bytes: the template is its data, so a changed
 * script is another template, wherever the file lives. */
static int init_sql_key_line(const char *path, char *line, size_t linelen, verdict_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "init SQL %s: %s", path, strerror(errno));
        return -1;
    }
    uint64_t hash = HASH_FNV_OFFSET;
    size_t total = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        hash = hash_fnv1a(hash, chunk, got);
        total += got;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed) {
        error_set(err, ERROR_COMMAND_FAILED, "init SQL %s: read error", path);
        return -1;
    }
    snprintf(line, linelen, "init=%016llx %zu bytes\n", (unsigned long long)hash, total);
    return 0;
}

/* The template's identity: recipe, bindir, the server's version and binary (a rebuild in
 * the same bindir may change the on-disk format), scale, settings in order. */
static int template_key_text(const cluster_template_spec *spec, const cluster_context *context,
                             char *key, size_t keylen, verdict_error *err)
{
    char postgres[CLUSTER_PATH_MAX], version[256];
    program_path(context->bindir, "postgres", postgres, sizeof postgres);
    char *const version_argv[] = {postgres, "-V", NULL};
    if (capture_program_output(&context->user, version_argv, version, sizeof version, err) != 0)
        return -1;
    version[strcspn(version, "\n")] = '\0';
    struct stat st;
    if (stat(postgres, &st) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "%s: %s", postgres, strerror(errno));
        return -1;
    }
    char line[CLUSTER_PATH_MAX + 512];
    size_t used = 0;
    key[0] = '\0';
    snprintf(line, sizeof line,
             "%s\nbindir=%s\nversion=%s\nbinary=%lld bytes, modified %lld.%09ld\nscale=%d\n",
             TEMPLATE_RECIPE, context->bindir, version, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, spec->pgbench_scale);
    int rc = append_text(key, keylen, &used, line);
    for (size_t i = 0; rc == 0 && i < spec->n_settings; i++) {
        snprintf(line, sizeof line, "setting=%s\n", spec->settings[i]);
        rc = append_text(key, keylen, &used, line);
    }
    if (rc == 0 && spec->init_sql_path) {
        if (init_sql_key_line(spec->init_sql_path, line, sizeof line, err) != 0)
            return -1;
        rc = append_text(key, keylen, &used, line);
    }
    for (size_t i = 0; rc == 0 && i < spec->n_init_variables; i++) {
        snprintf(line, sizeof line, "init_variable=%s\n", spec->init_variables[i]);
        rc = append_text(key, keylen, &used, line);
    }
    if (rc != 0)
        error_set(err, ERROR_COMMAND_FAILED, "too many settings for one template");
    return rc;
}

static void instance_reset(cluster_instance *c)
{
    memset(c, 0, sizeof *c);
    c->owner_lock_fd = -1;
    c->port_lock_fd = -1;
    c->ports_fd = -1;
    c->instance_fd = -1;
}

/* Gives the port back: its lock file goes, so the cache does not fill with them. */
static void release_port(cluster_instance *c)
{
    char name[32];
    snprintf(name, sizeof name, "%d.lock", c->port);
    if (c->port_lock_fd >= 0)
        lock_file_release(c->ports_fd, name, c->port_lock_fd);
    if (c->ports_fd >= 0)
        close(c->ports_fd);
    c->port_lock_fd = c->ports_fd = -1;
}

/* Closes what the instance holds; the directory is already gone (or being abandoned). */
static void instance_forget(cluster_instance *c)
{
    release_port(c);
    if (c->instance_fd >= 0)
        close(c->instance_fd);
    if (c->owner_lock_fd >= 0)
        close(c->owner_lock_fd);
    instance_reset(c);
}

static void instance_release(cluster_instance *c)
{
    if (c->instance_dir[0] != '\0')
        instance_dir_remove(c->instance_dir, c->socket_dir, NULL);
    instance_forget(c);
}

/* A port no other verdict on this cache holds: a lock file per port, locked while the
 * instance lives, removed when it ends, released by the kernel if its owner dies. Servers
 * listen on no TCP port, so the lock alone decides. */
static int reserve_port(const cluster_context *context, cluster_instance *c, verdict_error *err)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    /* Start somewhere different per process so concurrent verdicts rarely contend. */
    unsigned first = (unsigned)getpid() * 7919u + (unsigned)now.tv_nsec;
    for (unsigned i = 0; i < PORT_COUNT; i++) {
        int port = PORT_FIRST + (int)((first + i) % PORT_COUNT);
        char name[32];
        snprintf(name, sizeof name, "%d.lock", port);
        int fd = -1, rc = lock_file_acquire(context->ports_fd, name, false, &fd);
        if (rc < 0) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot lock %s/ports/%s: %s", context->cache.path,
                      name, strerror(errno));
            return -1;
        }
        if (rc == 0) {
            c->port = port;
            c->port_lock_fd = fd;
            c->ports_fd = fcntl(context->ports_fd, F_DUPFD_CLOEXEC, 0);
            return 0;
        }
    }
    error_set(err, ERROR_COMMAND_FAILED, "no free port in %d..%d", PORT_FIRST,
              PORT_FIRST + PORT_COUNT - 1);
    return -1;
}

/* A directory the server user owns, made in the instance by verdict (0700). */
static int make_server_dir(const cluster_context *context, int dir_fd, const char *name,
                           const char *shown, verdict_error *err)
{
    if (mkdirat(dir_fd, name, 0700) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot create %s: %s", shown, strerror(errno));
        return -1;
    }
    if (context->user.switch_user &&
        fchownat(dir_fd, name, context->user.uid, context->user.gid, AT_SYMLINK_NOFOLLOW) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot hand %s to '%s': %s", shown,
                  context->user.name, strerror(errno));
        return -1;
    }
    return 0;
}

/* The instance's own socket directory, or a short one in /tmp when the cache path is too
 * long for a Unix socket address. */
static int make_socket_dir(const cluster_context *context, cluster_instance *c, verdict_error *err)
{
    (void)path_format(c->socket_dir, sizeof c->socket_dir, "%s/socket", c->instance_dir);
    if (strlen(c->socket_dir) <= SOCKET_DIR_MAX) {
        if (make_server_dir(context, c->instance_fd, "socket", c->socket_dir, err) == 0)
            return 0;
        c->socket_dir[0] = '\0';
        return -1;
    }
    snprintf(c->socket_dir, sizeof c->socket_dir, "/tmp/verdict-pg-XXXXXX");
    if (mkdtemp(c->socket_dir) == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot create a socket directory in /tmp: %s",
                  strerror(errno));
        c->socket_dir[0] = '\0';
        return -1;
    }
    if (context->user.switch_user &&
        chown(c->socket_dir, context->user.uid, context->user.gid) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot hand %s to '%s': %s", c->socket_dir,
                  context->user.name, strerror(errno));
        return -1;
    }
    return 0;
}

/* A launcher's output directory, the server user's (launched programs write there). */
static int make_tool_dir(const cluster_context *context, cluster_instance *c, verdict_error *err)
{
    size_t words = 0;
    while (context->launcher && context->launcher[words])
        words++;
    if (words == 0)
        return 0;
    if (words > LAUNCHER_MAX)
        return error_set(err, ERROR_INTERNAL, "a launcher of %zu words (at most %d)", words,
                         LAUNCHER_MAX);
    (void)path_format(c->tool_dir, sizeof c->tool_dir, "%s/tool", c->instance_dir);
    if (make_server_dir(context, c->instance_fd, "tool", c->tool_dir, err) == 0)
        return 0;
    c->tool_dir[0] = '\0';
    return -1;
}

/* The launcher's words into argv (allocated) with CLUSTER_TOOL_DIR replaced: how many, or
 * SIZE_MAX when out of memory (nothing is left allocated). */
static size_t launcher_words(const char *const *launcher, const char *tool_dir, char **argv)
{
    size_t n = 0;
    for (; launcher && launcher[n]; n++) {
        strbuf word = STRBUF_INIT;
        const char *at = launcher[n], *mark;
        for (; (mark = strstr(at, CLUSTER_TOOL_DIR)) != NULL; at = mark + strlen(CLUSTER_TOOL_DIR))
            strbuf_appendf(&word, "%.*s%s", (int)(mark - at), at, tool_dir);
        strbuf_appendf(&word, "%s", at);
        if ((argv[n] = strbuf_detach(&word)) == NULL) {
            while (n > 0)
                free(argv[--n]);
            return SIZE_MAX;
        }
    }
    return n;
}

/* Records the server verdict started, before waiting for it: a reaper trusts this pid, not
 * postmaster.pid (which the server, or whoever can write there, writes). */
static int write_instance_record(const cluster_instance *c, verdict_error *err)
{
    instance_record record = {.owner_pid = getpid(), .owner_start = process_start_time(getpid()),
                              .postmaster_pid = c->postmaster_pid, .server_uid = c->server_uid,
                              .port = c->port};
    snprintf(record.socket_dir, sizeof record.socket_dir, "%s", c->socket_dir);
    return instance_record_write(c->instance_fd, &record, err);
}

/* True when postmaster.pid's status line says "ready": PostgreSQL writes it once it
 * accepts connections, which is what pg_ctl -w waits for too. */
static bool postmaster_ready(const char *data_dir)
{
    char path[CLUSTER_PATH_MAX + 32], text[2048];
    snprintf(path, sizeof path, "%s/postmaster.pid", data_dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    const char *line = text;
    for (int i = 1; i < 8 && line != NULL; i++) {
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return line != NULL && strncmp(line, "ready", 5) == 0;
}

/* Waits until the server accepts connections, or says why it will not. */
static int wait_until_ready(cluster_instance *c, verdict_error *err)
{
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    for (;;) {
        int status = 0;
        if (wait_for_exit(c->postmaster_pid, READY_POLL_SECONDS, &status)) {
            c->postmaster_pid = 0;
            char tail[ERROR_TAIL];
            read_file_tail(c->log_path, tail, sizeof tail);
            error_set(err, ERROR_COMMAND_FAILED, "the server refused to start; %s ends with:\n%s",
                      c->log_path, tail);
            return -1;
        }
        if (postmaster_ready(c->data_dir))
            return 0;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - started.tv_sec) > START_TIMEOUT) {
            char tail[ERROR_TAIL];
            read_file_tail(c->log_path, tail, sizeof tail);
            error_set(err, ERROR_COMMAND_FAILED, "the server was not ready after %.0f s; %s ends "
                      "with:\n%s", START_TIMEOUT, c->log_path, tail);
            return -1;
        }
    }
}

/* Starts postgres on c->data_dir: reserved port, private socket, own session, SIGQUIT
 * when verdict dies; waits until it accepts connections. */
static int launch_server(const cluster_context *context, cluster_instance *c, verdict_error *err)
{
    if (reserve_port(context, c, err) != 0 || make_socket_dir(context, c, err) != 0 ||
        make_tool_dir(context, c, err) != 0)
        return -1;
    (void)path_format(c->log_path, sizeof c->log_path, "%s/server.log", c->instance_dir);
    (void)path_format(c->user, sizeof c->user, "%s", context->user.name);
    int log_fd = openat(c->instance_fd, "server.log",
                        O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", c->log_path, strerror(errno));
        return -1;
    }
    char postgres[CLUSTER_PATH_MAX], port[16];
    program_path(context->bindir, "postgres", postgres, sizeof postgres);
    snprintf(port, sizeof port, "%d", c->port);
    char *const server[] = {postgres, "-D", c->data_dir, "-p", port, "-k", c->socket_dir,
                            "-c", "listen_addresses=", NULL};
    char *argv[LAUNCHER_MAX + ARRAY_SIZE(server)];
    size_t n = launcher_words(context->launcher, c->tool_dir, argv);
    memcpy(argv + n, server, sizeof server);
    spawn_request request = {.user = &context->user, .argv = argv, .output_fd = log_fd,
                             .new_session = true, .die_with_parent = true,
                             .cpus = context->server_cpus};
    pid_t pid;
    int rc = n == SIZE_MAX ? error_no_memory(err) : spawn_program(&request, &pid, err);
    close(log_fd);
    for (size_t i = 0; i < n && n != SIZE_MAX; i++)
        free(argv[i]);
    if (rc != 0)
        return -1;
    c->postmaster_pid = pid;
    if (write_instance_record(c, err) != 0)
        return -1;
    return wait_until_ready(c, err);
}

/* Stops the server and forgets it, keeping the directory (a template in the making). */
static int stop_server(cluster_instance *c, verdict_error *err)
{
    int rc = stop_server_processes(c->postmaster_pid, c->data_dir, FAST_STOP_TIMEOUT,
                                   c->postmaster_pid, c->server_uid, err);
    c->postmaster_pid = 0;
    return rc;
}

static void abandon_instance(cluster_instance *c)
{
    if (c->postmaster_pid > 0 || c->data_dir[0] != '\0')
        stop_server_processes(c->postmaster_pid, c->data_dir, 0.0, c->postmaster_pid,
                              c->server_uid, NULL);
    instance_release(c);
}

/* A new instance directory in the cache, its descriptors held in c. */
static int new_instance(const cluster_context *context, cluster_instance *c, verdict_error *err)
{
    c->server_uid = context->user.uid;
    if (instance_dir_create(&context->cache, context->instances_fd, &context->user,
                            c->instance_dir, sizeof c->instance_dir, &c->instance_fd,
                            &c->owner_lock_fd, err) != 0)
        return -1;
    (void)path_format(c->data_dir, sizeof c->data_dir, "%s/data", c->instance_dir);
    return server_user_check_access(&context->user, c->instance_dir, err);
}

static void quote_conninfo_value(const char *value, char *out, size_t outlen)
{
    size_t used = 0;
    if (outlen == 0)
        return;
    if (used + 1 < outlen)
        out[used++] = '\'';
    for (const char *p = value; *p != '\0' && used + 3 < outlen; p++) {
        if (*p == '\'' || *p == '\\')
            out[used++] = '\\';
        out[used++] = *p;
    }
    if (used + 1 < outlen)
        out[used++] = '\'';
    out[used] = '\0';
}

void cluster_conninfo(const cluster_instance *c, char *buf, size_t len)
{
    char host[CLUSTER_PATH_MAX * 2 + 3], user[CLUSTER_USER_MAX * 2 + 3];
    quote_conninfo_value(c->socket_dir, host, sizeof host);
    quote_conninfo_value(c->user, user, sizeof user);
    snprintf(buf, len, "host=%s port=%d user=%s dbname=postgres", host, c->port, user);
}

int cluster_checkpoint(cluster_instance *c, verdict_error *err)
{
    char conninfo[CLUSTER_PATH_MAX * 2 + 256];
    cluster_conninfo(c, conninfo, sizeof conninfo);
    strncat(conninfo, " connect_timeout=30", sizeof conninfo - strlen(conninfo) - 1);
    PGconn *connection = PQconnectdb(conninfo);
    if (PQstatus(connection) != CONNECTION_OK) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot connect to the server on %s port %d: %s",
                  c->socket_dir, c->port, PQerrorMessage(connection));
        PQfinish(connection);
        return -1;
    }
    PGresult *result = PQexec(connection, "CHECKPOINT");
    int rc = 0;
    if (PQresultStatus(result) != PGRES_COMMAND_OK) {
        error_set(err, ERROR_COMMAND_FAILED, "CHECKPOINT failed: %s", PQerrorMessage(connection));
        rc = -1;
    }
    PQclear(result);
    PQfinish(connection);
    return rc;
}

/* WAL segments named after the latest checkpoint's are recycled ones waiting for reuse:
 * after pgbench -i at scale 10 they are half the template (145 of 317 MB). Every start
 * would copy them, and the kernel would write the copies back during the measurement.
 * PostgreSQL creates segments on demand, so they go; the ones up to the checkpoint stay. */
static int prune_future_wal(const cluster_context *context, const char *data_dir,
                            verdict_error *err)
{
    char controldata[CLUSTER_PATH_MAX], output[8192];
    if (program_path(context->bindir, "pg_controldata", controldata, sizeof controldata) != 0 ||
        access(controldata, X_OK) != 0)
        return 0; /* without it we cannot tell; keeping them is safe */
    char *const argv[] = {controldata, "-D", (char *)data_dir, NULL};
    if (capture_program_output(&context->user, argv, output, sizeof output, err) != 0)
        return -1;
    const char *label = "Latest checkpoint's REDO WAL file:";
    const char *found = strstr(output, label);
    char redo_file[32] = "";
    if (found == NULL || sscanf(found + strlen(label), " %24[0-9A-F]", redo_file) != 1 ||
        strlen(redo_file) != 24)
        return 0;
    char wal_dir[CLUSTER_PATH_MAX];
    if (path_format(wal_dir, sizeof wal_dir, "%s/pg_wal", data_dir) != 0)
        return 0;
    /* The server's directory: never through a link it may have put there. */
    int wal_fd = open(wal_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *listing = wal_fd >= 0 ? fdopendir(wal_fd) : NULL;
    if (listing == NULL) {
        if (wal_fd >= 0)
            close(wal_fd);
        return 0;
    }
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        const char *name = entry->d_name;
        /* Same timeline (first 8 hex digits), a later segment: same-length upper-case hex
         * names compare like the numbers they spell. */
        if (strlen(name) == 24 && strspn(name, "0123456789ABCDEF") == 24 &&
            strncmp(name, redo_file, 8) == 0 && strcmp(name, redo_file) > 0)
            unlinkat(wal_fd, name, 0);
    }
    closedir(listing);
    return 0;
}

/* psql -X -v ON_ERROR_STOP=1 [-v NAME=VALUE]... -f - with the init SQL as its input. */
static int run_init_sql(const cluster_template_spec *spec, const cluster_context *context,
                        const cluster_instance *c, verdict_error *err)
{
    char psql[CLUSTER_PATH_MAX], port[16], log_path[CLUSTER_PATH_MAX + 16];
    program_path(context->bindir, "psql", psql, sizeof psql);
    snprintf(port, sizeof port, "%d", c->port);
    (void)path_format(log_path, sizeof log_path, "%s/init-sql.log", c->instance_dir);
    /* argv is only read (execve's type wants it writable): the words are borrowed */
    const char *fixed[] = {psql, "-X", "-q", "-v", "ON_ERROR_STOP=1"};
    const char *connect[] = {"-h", c->socket_dir, "-p", port, "-U", c->user, "-d", "postgres",
                             "-f", "-", NULL};
    size_t n = 0, max = 5 + 2 * spec->n_init_variables + sizeof connect / sizeof *connect;
    const char **argv = calloc(max, sizeof *argv);
    if (argv == NULL) {
        error_no_memory(err);
        return -1;
    }
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        argv[n++] = fixed[i];
    for (size_t i = 0; i < spec->n_init_variables; i++) {
        argv[n++] = "-v";
        argv[n++] = spec->init_variables[i];
    }
    for (size_t i = 0; i < sizeof connect / sizeof *connect; i++)
        argv[n++] = connect[i];
    verdict_error why = {0};
    int rc = run_program(&context->user, (char *const *)argv, spec->init_sql_path, log_path,
                         INIT_SQL_TIMEOUT, &why);
    if (rc != 0)
        error_set(err, ERROR_COMMAND_FAILED, "init SQL %s (psql reads it as <stdin>): %s",
                  spec->init_sql_path, why.message);
    free(argv);
    return rc;
}

/* Builds a template in a fresh instance directory; on success c->data_dir holds it, stopped. */
static int build_template(const cluster_template_spec *spec, const cluster_context *context,
                          cluster_instance *c, verdict_error *err)
{
    /* initdb fills an empty data directory verdict made for the server user: the instance
     * directory itself stays verdict's. */
    if (new_instance(context, c, err) != 0 ||
        make_server_dir(context, c->instance_fd, "data", c->data_dir, err) != 0)
        return -1;
    char initdb[CLUSTER_PATH_MAX], log_path[CLUSTER_PATH_MAX + 16];
    program_path(context->bindir, "initdb", initdb, sizeof initdb);
    (void)path_format(log_path, sizeof log_path, "%s/initdb.log", c->instance_dir);
    char user_option[CLUSTER_USER_MAX + 16];
    snprintf(user_option, sizeof user_option, "--username=%s", context->user.name);
    char *const initdb_argv[] = {initdb, "-D", c->data_dir, "-A", "trust", "--no-sync",
                                 "-E", "UTF8", "--locale=C", user_option, NULL};
    if (run_program(&context->user, initdb_argv, NULL, log_path, INITDB_TIMEOUT, err) != 0)
        return -1;

    char conf_path[CLUSTER_PATH_MAX + 32], *conf = malloc(KEY_TEXT_MAX);
    if (conf == NULL) {
        error_no_memory(err);
        return -1;
    }
    size_t used = 0;
    int rc = append_text(conf, KEY_TEXT_MAX, &used,
                         "\n# verdict: settings of this template (later lines win)\n"
                         "listen_addresses = ''\n");
    for (size_t i = 0; rc == 0 && i < spec->n_settings; i++) {
        char line[4096];
        rc = format_setting(spec->settings[i], line, sizeof line);
        if (rc == 0)
            rc = append_text(conf, KEY_TEXT_MAX, &used, line);
    }
    snprintf(conf_path, sizeof conf_path, "%s/postgresql.conf", c->data_dir);
    if (rc != 0)
        error_set(err, ERROR_COMMAND_FAILED, "settings too long");
    else
        rc = append_to_file(conf_path, conf, err);
    free(conf);
    if (rc != 0)
        return -1;

    /* Started even without pgbench data: a setting the server rejects should fail here,
     * once, not at every run. */
    if (launch_server(context, c, err) != 0)
        return -1;
    if (spec->pgbench_scale > 0) {
        char pgbench[CLUSTER_PATH_MAX], scale[16], port[16];
        program_path(context->bindir, "pgbench", pgbench, sizeof pgbench);
        snprintf(scale, sizeof scale, "%d", spec->pgbench_scale);
        snprintf(port, sizeof port, "%d", c->port);
        (void)path_format(log_path, sizeof log_path, "%s/pgbench-init.log", c->instance_dir);
        char *const pgbench_argv[] = {pgbench, "-i", "-q", "-s", scale, "-h", c->socket_dir,
                                      "-p", port, "-U", c->user, "postgres", NULL};
        double timeout = INITDB_TIMEOUT + 60.0 * spec->pgbench_scale;
        if (run_program(&context->user, pgbench_argv, NULL, log_path, timeout, err) != 0)
            return -1;
    }
    if (spec->init_sql_path && run_init_sql(spec, context, c, err) != 0)
        return -1;
    if (cluster_checkpoint(c, err) != 0 || stop_server(c, err) != 0)
        return -1;
    /* A clean shutdown removes postmaster.pid; if it is still there the server was
     * killed and the template would start with crash recovery. */
    char leftover[CLUSTER_PATH_MAX + 32];
    struct stat st;
    snprintf(leftover, sizeof leftover, "%s/postmaster.pid", c->data_dir);
    if (lstat(leftover, &st) == 0) {
        error_set(err, ERROR_COMMAND_FAILED, "the template server did not shut down cleanly; see "
                  "%s", c->log_path);
        return -1;
    }
    snprintf(leftover, sizeof leftover, "%s/postmaster.opts", c->data_dir);
    unlink(leftover);
    if (prune_future_wal(context, c->data_dir, err) != 0)
        return -1;
    /* initdb ran with --no-sync; a template outlives many runs, so make it durable once. */
    return fsync_tree(c->data_dir, err);
}

/* Opens a template data directory only if it is what verdict builds: a directory (not a
 * link) of the server user that no one else may enter (initdb makes it 0700), with its
 * PG_VERSION. 0 with *fd_out; 1 when there is nothing at name; -1 with a message. */
static int open_template(int dir_fd, const char *name, const char *shown,
                         const server_user *user, int *fd_out, verdict_error *err)
{
    *fd_out = -1;
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 1;
    struct stat st, version;
    const char *why = NULL;
    if (fd < 0)
        why = errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory"
                                                 : strerror(errno);
    else if (fstat(fd, &st) != 0 || st.st_uid != user->uid)
        why = "not owned by the server user";
    else if ((st.st_mode & 027) != 0)
        why = "others may enter or change it";
    else if (fstatat(fd, "PG_VERSION", &version, AT_SYMLINK_NOFOLLOW) != 0 ||
             !S_ISREG(version.st_mode))
        why = "no PG_VERSION";
    if (why != NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a template data directory verdict made "
                  "(%s; server user '%s'); remove it to have it rebuilt", shown, why, user->name);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *fd_out = fd;
    return 0;
}

/* KEY.txt holds the text the key was hashed from, written by verdict before the template
 * was moved into place: the proof that templates/KEY is verdict's and built from this. */
static bool template_text_matches(int templates_fd, const char *name, const char *key)
{
    int fd = openat(templates_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    char *text = malloc(KEY_TEXT_MAX);
    bool same = false;
    if (fd >= 0 && text != NULL && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid()) {
        ssize_t n = read(fd, text, KEY_TEXT_MAX - 1);
        same = n >= 0 && (size_t)n == strlen(key) && memcmp(text, key, (size_t)n) == 0;
    }
    free(text);
    if (fd >= 0)
        close(fd);
    return same;
}

static int write_key_text(int templates_fd, const char *name, const char *key, verdict_error *err)
{
    int fd = openat(templates_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    size_t length = strlen(key);
    bool ok = fd >= 0 && write(fd, key, length) == (ssize_t)length;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok)
        error_set(err, ERROR_COMMAND_FAILED, "cannot write templates/%s: %s", name,
                  strerror(errno));
    return ok ? 0 : -1;
}

/* Builds the template in a new instance and moves its data directory into templates/. */
static int build_and_install(const cluster_template_spec *spec, const cluster_context *context,
                             const char *name, const char *key, verdict_error *err)
{
    /* Reap first: a crashed builder's half-made template may still run a server. */
    int reaped;
    reap_in_cache(&context->cache, &reaped, NULL);
    char text_name[48];
    snprintf(text_name, sizeof text_name, "%s.txt", name);
    if (write_key_text(context->templates_fd, text_name, key, err) != 0)
        return -1;
    cluster_instance building;
    instance_reset(&building);
    int rc = build_template(spec, context, &building, err);
    if (rc == 0 && renameat(building.instance_fd, "data", context->templates_fd, name) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot move the template to %s/templates/%s: %s",
                  context->cache.path, name, strerror(errno));
        rc = -1;
    }
    if (rc != 0) /* nothing cached: no description of it either */
        unlinkat(context->templates_fd, text_name, 0);
    abandon_instance(&building);
    return rc;
}

/* The template under the lock: reused when it is verdict's and built from key, built when
 * missing, refused (never removed: verdict cannot prove it made it) otherwise. */
static int find_or_build(const cluster_template_spec *spec, const cluster_context *context,
                         const char *name, const char *key, const char *template_dir,
                         verdict_error *err)
{
    int fd, found = open_template(context->templates_fd, name, template_dir, &context->user,
                                  &fd, err);
    if (found == 1)
        return build_and_install(spec, context, name, key, err);
    if (found < 0)
        return -1;
    close(fd);
    char text_name[48];
    snprintf(text_name, sizeof text_name, "%s.txt", name);
    if (!template_text_matches(context->templates_fd, text_name, key)) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a template verdict built for these "
                   "settings (its %s is missing, not verdict's, or describes another build); "
                  "remove it to have it rebuilt", template_dir, text_name);
        return -1;
    }
    return 0;
}

static int check_spec(const cluster_template_spec *spec, verdict_error *err)
{
    if (spec->pgbench_scale < 0 || (spec->n_settings > 0 && spec->settings == NULL)) {
        error_set(err, ERROR_COMMAND_FAILED, "bad template spec: scale %d, %zu settings",
                  spec->pgbench_scale, spec->n_settings);
        return -1;
    }
    for (size_t i = 0; i < spec->n_settings; i++)
        if (check_setting(spec->settings[i], err) != 0)
            return -1;
    return 0;
}

/* One builder per template: others wait on KEY.lock, then find it built. */
static int prepare_locked(const cluster_template_spec *spec, const cluster_context *context,
                          const char *key, char *template_dir_out, size_t outlen,
                              verdict_error *err)
{
    char name[24], lock_name[32], template_dir[CLUSTER_PATH_MAX + 32];
    snprintf(name, sizeof name, "%016" PRIx64, hash_fnv1a(HASH_FNV_OFFSET, key, strlen(key)));
    snprintf(lock_name, sizeof lock_name, "%s.lock", name);
    if (path_format(template_dir, sizeof template_dir, "%s/templates/%s", context->cache.path,
                    name) != 0 || strlen(template_dir) >= outlen) {
        error_set(err, ERROR_COMMAND_FAILED, "template path too long for the output buffer");
        return -1;
    }
    int lock_fd;
    if (lock_file_acquire(context->templates_fd, lock_name, true, &lock_fd) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot lock %s.lock: %s", template_dir,
                  strerror(errno));
        return -1;
    }
    int rc = find_or_build(spec, context, name, key, template_dir, err);
    /* Kept, unlike port locks: one per template, and verdicts before this one lock it
     * without checking that the file they locked is still the one named. */
    close(lock_fd);
    if (rc == 0)
        snprintf(template_dir_out, outlen, "%s", template_dir);
    return rc;
}

int cluster_template_prepare(const cluster_template_spec *spec, char *template_dir_out,
                             size_t outlen, verdict_error *err)
{
    cluster_context context;
    if (context_resolve(spec, &context, err) != 0)
        return -1;
    char *key = malloc(KEY_TEXT_MAX);
    int rc = -1;
    if (key == NULL)
        error_no_memory(err);
    else if (check_spec(spec, err) == 0 &&
             template_key_text(spec, &context, key, KEY_TEXT_MAX, err) == 0)
        rc = prepare_locked(spec, &context, key, template_dir_out, outlen, err);
    free(key);
    context_release(&context);
    return rc;
}

/* Copies the template into a new instance, starts it and checkpoints. */
static int start_from(const cluster_context *context, int template_fd, const char *template_dir,
                      cluster_instance *c, verdict_error *err)
{
    /* Every start sweeps up what crashed verdicts left; a failure to reap one must not
     * stop this run (cluster_reap_leftovers reports it when called on its own). */
    int reaped;
    reap_in_cache(&context->cache, &reaped, NULL);
    if (new_instance(context, c, err) != 0 ||
        copy_tree_from(template_fd, template_dir, c->data_dir, err) != 0 ||
        launch_server(context, c, err) != 0 || cluster_checkpoint(c, err) != 0) {
        abandon_instance(c);
        return -1;
    }
    return 0;
}

int cluster_start(const char *template_dir, const cluster_template_spec *spec,
                  cluster_instance *out, verdict_error *err)
{
    instance_reset(out);
    cluster_context context;
    if (context_resolve(spec, &context, err) != 0)
        return -1;
    context.launcher = spec->launcher;
    /* Checked through the descriptor it is then copied from. */
    int template_fd = -1;
    int rc = open_template(AT_FDCWD, template_dir, template_dir, &context.user, &template_fd,
                           err);
    if (rc == 1)
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a template data directory (it does not "
                  "exist)", template_dir);
    if (rc == 0)
        rc = start_from(&context, template_fd, template_dir, out, err);
    if (template_fd >= 0)
        close(template_fd);
    context_release(&context);
    return rc == 0 ? 0 : -1;
}

size_t cluster_processes(const cluster_instance *c, pid_t *pids, size_t max)
{
    return c->postmaster_pid > 0 ? processes_in_dir(c->data_dir, pids, max) : 0;
}

int cluster_stop(cluster_instance *c, verdict_error *err)
{
    if (c->instance_dir[0] == '\0')
        return 0; /* already stopped */
    int rc = stop_server(c, err);
    if (rc == 0 && instance_dir_remove(c->instance_dir, c->socket_dir, err) != 0)
        rc = -1;
    if (rc != 0)
        return -1; /* keep the record: the caller may retry, a reaper will find it */
    instance_forget(c);
    return 0;
}

int cluster_find_bindir(char *bindir_out, size_t outlen)
{
    /* Debian and Ubuntu keep each major version apart; newest first. */
    for (int major = 30; major >= 9; major--) {
        char candidate[64], postgres[96];
        snprintf(candidate, sizeof candidate, "/usr/lib/postgresql/%d/bin", major);
        snprintf(postgres, sizeof postgres, "%s/postgres", candidate);
        if (access(postgres, X_OK) == 0 && strlen(candidate) < outlen) {
            snprintf(bindir_out, outlen, "%s", candidate);
            return 0;
        }
    }
    static const char *const others[] = {"/usr/local/pgsql/bin", "/usr/pgsql/bin", "/usr/bin"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        char postgres[96];
        snprintf(postgres, sizeof postgres, "%s/postgres", others[i]);
        if (access(postgres, X_OK) == 0 && strlen(others[i]) < outlen) {
            snprintf(bindir_out, outlen, "%s", others[i]);
            return 0;
        }
    }
    return -1;
}
