package d

// Name names the package.
const Name = "d"
