/* A workload whose page faults are known: `touch_pages N` writes one byte into each of N
 * fresh anonymous pages (one minor fault each); `touch_pages --in-child N` does it in a child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Huge pages are refused for the mapping: one fault would then map 512 pages. */
static int touch(size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    volatile char *memory = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED || madvise((void *)memory, pages * page, MADV_NOHUGEPAGE) != 0) {
        perror("touch_pages: mmap");
        return 1;
    }
    for (size_t i = 0; i < pages; i++)
        memory[i * page] = 1;
    return munmap((void *)memory, pages * page) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int in_child = argc == 3 && strcmp(argv[1], "--in-child") == 0;
    char *end = NULL;
    unsigned long pages = argc >= 2 ? strtoul(argv[argc - 1], &end, 10) : 0;
    if ((argc != 2 && !in_child) || end == argv[argc - 1] || *end != '\0' || pages == 0) {
        fprintf(stderr, "usage: touch_pages [--in-child] PAGES\n");
        return 2;
    }
    if (!in_child)
        return touch(pages);
    pid_t pid = fork();
    if (pid == 0)
        _exit(touch(pages));
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
