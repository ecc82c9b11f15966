/* Fixture: one error in a second file. */
int util(void) { return undeclared_helper(); }
