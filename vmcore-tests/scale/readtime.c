// SPDX-License-Identifier: GPL-2.0
/*
 * readtime FILE BUFSIZE [COPY]: read FILE to the end in read()s of BUFSIZE
 * bytes (writing what was read to COPY, if given) and print "reads N bytes
 * B total_s T max_read_ms M sys_s S": the longest single read() bounds how
 * long the kernel held any lock for one of them; S is the system CPU time
 * of the reads (getrusage()), which other tasks' work does not inflate.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0, t, max = 0;
	long n = 0, bytes = 0;
	size_t size;
	ssize_t r;
	char *buf;
	struct rusage ru;
	FILE *copy = NULL;
	int fd;

	if (argc != 3 && argc != 4)
		return 2;
	if (argc == 4 && !(copy = fopen(argv[3], "w"))) {
		perror(argv[3]);
		return 1;
	}
	size = strtoul(argv[2], NULL, 10);
	buf = malloc(size);
	fd = open(argv[1], O_RDONLY);
	if (!buf || fd < 0) {
		perror(argv[1]);
		return 1;
	}
	t0 = now();
	for (;;) {
		t = now();
		r = read(fd, buf, size);
		t = now() - t;
		if (r < 0) {
			perror("read");
			return 1;
		}
		if (r == 0)
			break;
		if (t > max)
			max = t;
		n++;
		bytes += r;
		if (copy && fwrite(buf, 1, (size_t)r, copy) != (size_t)r) {
			perror(argv[3]);
			return 1;
		}
	}
	t = now() - t0;
	if (copy && fclose(copy)) {
		perror(argv[3]);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("reads %ld bytes %ld total_s %.3f max_read_ms %.3f sys_s %.3f\n", n, bytes, t,
	       max * 1e3, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
