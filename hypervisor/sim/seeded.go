package sim

import (
	"math/rand/v2"
)

// Tags keep the seeded streams apart: the same seed must not give a machine's MAC and
// its CPU noise the same bits.
const (
	tagMAC uint64 = iota + 1
	tagDemo
	tagProfile
	tagNoise1
	tagNoise30
	tagNoise360
	tagDay
	tagBackup
)

// mix hashes its inputs into 64 well-mixed bits (splitmix64 finaliser over a running
// state). Everything "random" in the usage model is mix of (seed, entity, time), so a
// value depends only on what it describes, never on call order.
func mix(vals ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range vals {
		h = fmix(h ^ (v + 0x9e3779b97f4a7c15 + h<<6 + h>>2))
	}
	return h
}

func fmix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// unit maps hash bits to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// sym maps hash bits to [-1, 1).
func sym(h uint64) float64 { return 2*unit(h) - 1 }

// newRand is a seeded generator for one purpose (tag), for sequences where call order
// is part of the scenario anyway (demo machines, random failures).
func newRand(seed, tag uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, tag)) }
