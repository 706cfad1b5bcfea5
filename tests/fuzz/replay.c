/*
 * replay.c - run the fuzz harness over files with any compiler (no
 * libFuzzer needed): `replay FILE...`.  Used by CI to replay the seed
 * corpus under gcc + ASan/UBSan as well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	static uint8_t buf[1 << 16];
	int n = 0;

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t len;

		if (f == NULL) {
			perror(argv[i]);
			return 1;
		}
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		n++;
	}
	printf("replayed %d inputs\n", n);
	return 0;
}
