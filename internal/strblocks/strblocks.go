// Package strblocks copies many small strings into shared blocks of memory, so that a
// map or a slice of a million of them holds a few hundred allocations instead of a
// million: the indexes a sync of the whole fleet reads in one scan (every machine's
// id by vmid, every machine's digest by id), which a million machines made 0.2 GB of
// small allocations for the collector to mark (issue 33).
package strblocks

import "strings"

// blockSize is the size of one block; a string longer than an eighth of it gets an
// allocation of its own, so that a block is never mostly wasted.
const blockSize = 64 << 10

// Blocks hands out strings copied into its current block. A string keeps its whole
// block alive, so Blocks suits strings that live and die together. The zero value is
// ready to use; it is not safe for concurrent use.
type Blocks struct {
	b strings.Builder
}

// String returns a string holding a copy of p.
func (s *Blocks) String(p []byte) string {
	if len(p) > blockSize/8 {
		return string(p)
	}
	start := s.room(len(p))
	s.b.Write(p)
	return s.b.String()[start:]
}

// Of returns a string equal to str in a block, as String does; a string too long for
// one is returned as it is.
func (s *Blocks) Of(str string) string {
	if len(str) > blockSize/8 {
		return str
	}
	start := s.room(len(str))
	s.b.WriteString(str)
	return s.b.String()[start:]
}

// room makes sure the current block has n bytes free and says where they start.
func (s *Blocks) room(n int) int {
	if s.b.Cap()-s.b.Len() < n {
		// A new block: the strings handed out keep the old one, which a Builder never
		// writes again once it has grown past it.
		s.b = strings.Builder{}
		s.b.Grow(blockSize)
	}
	return s.b.Len()
}
