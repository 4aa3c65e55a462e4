package world

import "unsafe"

// unsafeData is where a string's bytes are: two strings sharing it are one copy.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
