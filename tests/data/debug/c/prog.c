/* Fixture for tests/debug.rs: built by the test with gcc -g -O0. */
#include <stdio.h>

static int add(int a, int b) {
    int total = a + b;
    return total;
}

int main(void) {
    int numbers[3] = {1, 2, 3};
    const char *label = "sum";
    int result = add(numbers[0], numbers[2]);
    printf("%s=%d\n", label, result);
    fflush(stdout);
    return result;
}
