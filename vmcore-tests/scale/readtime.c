// SPDX-License-Identifier: GPL-2.0
/*
 * readtime FILE BUFSIZE: read FILE to the end in read()s of BUFSIZE bytes
 * and print "reads N bytes B total_s T max_read_ms M": the longest single
 * read() bounds how long the kernel held any lock for one of them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
	int fd;

	if (argc != 3)
		return 2;
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
	}
	printf("reads %ld bytes %ld total_s %.3f max_read_ms %.3f\n", n, bytes, now() - t0,
	       max * 1e3);
	return 0;
}
