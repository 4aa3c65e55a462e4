package netpool

// MACs is a set of MAC addresses. The usual form, six octets of two hex digits joined by
// colons, is held as its 48 bits (eight bytes a machine, where a string key was about
// twenty-five), in either case; anything else as the string it is. The zero MACs is
// empty and ready.
type MACs struct {
	octets map[uint64]struct{}
	other  map[string]struct{}
}

// NewMACs is a set with room for n addresses.
func NewMACs(n int) MACs {
	return MACs{octets: make(map[uint64]struct{}, n)}
}

// Has reports whether mac is in the set.
func (s *MACs) Has(mac string) bool {
	if v, ok := parseMAC(mac); ok {
		_, in := s.octets[v]
		return in
	}
	_, in := s.other[mac]
	return in
}

// Add puts mac in the set.
func (s *MACs) Add(mac string) {
	if v, ok := parseMAC(mac); ok {
		if s.octets == nil {
			s.octets = map[uint64]struct{}{}
		}
		s.octets[v] = struct{}{}
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	s.other[mac] = struct{}{}
}

// Remove takes mac out of the set.
func (s *MACs) Remove(mac string) {
	if v, ok := parseMAC(mac); ok {
		delete(s.octets, v)
		return
	}
	delete(s.other, mac)
}

// parseMAC reads "XX:XX:XX:XX:XX:XX" (hex digits of either case) as 48 bits.
func parseMAC(s string) (uint64, bool) {
	if len(s) != 17 {
		return 0, false
	}
	var v uint64
	for i := 0; i < 17; i += 3 {
		if i > 0 && s[i-1] != ':' {
			return 0, false
		}
		hi, ok1 := hexDigit(s[i])
		lo, ok2 := hexDigit(s[i+1])
		if !ok1 || !ok2 {
			return 0, false
		}
		v = v<<8 | uint64(hi<<4|lo)
	}
	return v, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
