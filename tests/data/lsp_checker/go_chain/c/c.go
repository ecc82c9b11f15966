package c

import (
	"example.com/chain/a"
	"example.com/chain/b"
)

// Quad scales x twice.
func Quad(x int) int { return b.Double(a.Scale(x)) }
