package b

import "example.com/chain/a"

// Double scales x.
func Double(x int) int { return a.Scale(x) }
