/* inflate_isal.c — ISA-L's isal_inflate() of a gzip file to nowhere: the floor for fusediff's
 * gzip input when it is built with ISA-L (Debian's libisal-dev), the twin of inflate_null.c.
 *
 *   bench/inflate_isal FILE.gz
 *
 * Reads with read() in 1 MiB chunks and inflates into one reused 1 MiB buffer, concatenated
 * members included, with the gzip header and CRC-32 checked as fusediff does; prints the number
 * of bytes inflated. Built by bench/loader.py when the library is installed:
 *   cc -O2 -o bench/gen/inflate_isal bench/inflate_isal.c -lisal */
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static unsigned char in[1 << 20], out[1 << 20];
	static struct inflate_state z;
	unsigned long long total = 0;
	ssize_t n;
	int fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: inflate_isal FILE.gz\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0) {
		perror(argv[1]);
		return 1;
	}
	isal_inflate_init(&z);
	z.crc_flag = ISAL_GZIP;
	while ((n = read(fd, in, sizeof in)) > 0) {
		z.next_in = in;
		z.avail_in = (unsigned)n;
		while (z.avail_in) {
			z.next_out = out;
			z.avail_out = sizeof out;
			rc = isal_inflate(&z);
			total += sizeof out - z.avail_out;
			if (rc != ISAL_DECOMP_OK) {
				fprintf(stderr, "isal_inflate: error %d\n", rc);
				return 1;
			}
			if (z.block_state == ISAL_BLOCK_FINISH) {
				unsigned char *next = z.next_in;
				unsigned left = z.avail_in;

				isal_inflate_reset(&z);
				z.crc_flag = ISAL_GZIP;
				z.next_in = next;
				z.avail_in = left;
			}
		}
	}
	/* the last member's trailer may be waiting for no more input */
	do {
		z.next_out = out;
		z.avail_out = sizeof out;
		rc = isal_inflate(&z);
		total += sizeof out - z.avail_out;
	} while (rc == ISAL_DECOMP_OK && z.avail_out == 0);
	close(fd);
	printf("%llu bytes\n", total);
	return 0;
}
