// SPDX-License-Identifier: GPL-2.0
/*
 * runtime CMD [ARG...]: run CMD once (its output to /dev/null) and print
 * its wall time in seconds, from just before fork() to wait4()'s return,
 * and its peak RSS in KB.  The benchmarks' clock (bench-lib.sh): bash's
 * clock around time(1) also counted bash forking and time(1) starting,
 * about 10 ms on the bench machine, which is a third of a kmempool run
 * and shrank every ratio against a slower peer.  What this adds is one
 * fork() of a small program.  Exit status: CMD's, or 127 if it could not
 * be started.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status, fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: runtime CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("runtime: fork");
		return 127;
	}
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("runtime: wait4");
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.6f %ld\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
