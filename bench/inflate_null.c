/* inflate_null.c — zlib's inflate() of a gzip file to nowhere: the floor for fusediff's gzip
 * input (the same library call, without gzip(1)'s CRC-and-write loop around it).
 *
 *   bench/inflate_null FILE.gz
 *
 * Reads with read() in 1 MiB chunks and inflates into one reused 1 MiB buffer, concatenated
 * members included; prints the number of bytes inflated. Built by bench/loader.py:
 *   cc -O2 -o bench/gen/inflate_null bench/inflate_null.c -lz */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	static unsigned char in[1 << 20], out[1 << 20];
	unsigned long long total = 0;
	z_stream z;
	ssize_t n;
	int fd, rc = Z_OK;

	if (argc != 2) {
		fprintf(stderr, "usage: inflate_null FILE.gz\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return 1;
	while ((n = read(fd, in, sizeof in)) > 0) {
		z.next_in = in;
		z.avail_in = (unsigned)n;
		while (z.avail_in) {
			z.next_out = out;
			z.avail_out = sizeof out;
			rc = inflate(&z, Z_NO_FLUSH);
			total += sizeof out - z.avail_out;
			if (rc == Z_STREAM_END) {
				if (inflateReset(&z) != Z_OK)
					return 1;
			} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
				fprintf(stderr, "inflate: %s\n", z.msg ? z.msg : "error");
				return 1;
			}
		}
	}
	inflateEnd(&z);
	close(fd);
	printf("%llu bytes\n", total);
	return 0;
}
