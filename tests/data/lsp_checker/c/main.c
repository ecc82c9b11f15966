/* Fixture for the project checker: two errors. */
int area(int width, int height) { return width * height; }

int total = missing_value;
int *pointer = 3.0;
