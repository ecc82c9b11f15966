package main

import "fmt"

func main() {
	doubled := helper(21)
	fmt.Println("doubled", doubled)
}
