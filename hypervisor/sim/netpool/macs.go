package netpool

// MACs is a set of MAC addresses. One of the Proxmox OUI (BC:24:11), which Proxmox
// and the simulator give new machines, is a bit of a bitmap in pages of 2^16 addresses
// made when first used (2 MB for all 2^24 of them, where a map of a million MACs held
// 36 MB); any other of six octets its 48 bits in a map; anything else the string it is
// in another. Case does not matter. The zero MACs is empty and ready.
type MACs struct {
	proxmox [256]*[1024]uint64
	octets  map[uint64]struct{}
	other   map[string]struct{}
}

// proxmoxOUI is the first three octets of a Proxmox MAC, as the top 24 of 48 bits.
const proxmoxOUI = 0xBC2411

// bit answers the page, word and bit of a Proxmox MAC, or false for another.
func bit(v uint64) (page, word int, mask uint64, ok bool) {
	if v>>24 != proxmoxOUI {
		return 0, 0, 0, false
	}
	low := v & (1<<24 - 1)
	return int(low >> 16), int(low>>6) & 1023, 1 << (low & 63), true
}

// Has reports whether mac is in the set.
func (s *MACs) Has(mac string) bool {
	v, ok := parseMAC(mac)
	if !ok {
		_, in := s.other[mac]
		return in
	}
	if p, w, m, ok := bit(v); ok {
		return s.proxmox[p] != nil && s.proxmox[p][w]&m != 0
	}
	_, in := s.octets[v]
	return in
}

// Add puts mac in the set.
func (s *MACs) Add(mac string) {
	v, ok := parseMAC(mac)
	if !ok {
		if s.other == nil {
			s.other = map[string]struct{}{}
		}
		s.other[mac] = struct{}{}
		return
	}
	if p, w, m, ok := bit(v); ok {
		if s.proxmox[p] == nil {
			s.proxmox[p] = new([1024]uint64)
		}
		s.proxmox[p][w] |= m
		return
	}
	if s.octets == nil {
		s.octets = map[uint64]struct{}{}
	}
	s.octets[v] = struct{}{}
}

// Remove takes mac out of the set.
func (s *MACs) Remove(mac string) {
	v, ok := parseMAC(mac)
	if !ok {
		delete(s.other, mac)
		return
	}
	if p, w, m, ok := bit(v); ok {
		if s.proxmox[p] != nil {
			s.proxmox[p][w] &^= m
		}
		return
	}
	delete(s.octets, v)
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
