package main

import "fmt"

func main() {
	name := "checker"
	fmt.Printf("%d\n", name)
}
