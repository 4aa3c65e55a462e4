package hypervisor

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"regexp"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/apierr"
)

// Media is the part of the Driver that handles ISO images: the hypervisor's ISO
// library, a machine's CD-ROM drive and its boot order. A machine reports what it
// holds in Machine.Media and Machine.BootOrder.
type Media interface {
	// ImportISO brings an image into the hypervisor's ISO storage under spec.Name,
	// verified against spec.Checksum: a driver that fetches URLs itself (Proxmox's
	// download-url) fetches spec.URL; one that implements ISOFromFile takes
	// spec.File. A spec with a File and no URL (an image uploaded to vmplane) is
	// taken by every driver (Proxmox's sends the file up). A checksum that does not match fails with ErrChecksumMismatch and
	// leaves nothing behind. Proxmox may refuse a name its storage has already:
	// vmplane gives every image a file name of its own (its record's id).
	ImportISO(ctx context.Context, spec ISOSpec) (ISO, error)
	// DeleteISO removes an image; one that is not there is no error.
	DeleteISO(ctx context.Context, name string) error
	// MountISO puts an imported image into the machine's CD-ROM drive (replacing
	// what it held); an image the hypervisor lacks is ErrISONotFound.
	MountISO(ctx context.Context, ref Ref, name string) (Machine, error)
	// EjectISO empties the machine's CD-ROM drive.
	EjectISO(ctx context.Context, ref Ref) (Machine, error)
	// SetBootOrder sets the devices the machine boots from, in order (CheckBootOrder).
	SetBootOrder(ctx context.Context, ref Ref, order []string) (Machine, error)
}

// ISOFromFile is an optional interface of a driver that fetches nothing itself, the
// simulated cluster: vmplane fetches the image, verifies its checksum and hands the
// driver the file in ISOSpec.File.
type ISOFromFile interface {
	// ISOFromFile marks the driver.
	ISOFromFile()
}

// ISO is an image in the hypervisor's ISO storage.
type ISO struct {
	Name      string `json:"name"`
	SizeBytes int64  `json:"size_bytes"`
	Checksum  string `json:"checksum"`
}

// ISOSpec asks for an image to be imported.
type ISOSpec struct {
	// Name is the file name on the hypervisor (CheckISOName).
	Name string `json:"name"`
	// URL is where a driver that fetches gets the image (http or https); empty for
	// an image uploaded to vmplane, which File holds.
	URL string `json:"url"`
	// Checksum is "sha256:<hex>" or "sha512:<hex>" (ParseChecksum).
	Checksum string `json:"checksum"`
	// File is a local file holding the image, for an ISOFromFile driver, and for
	// every driver when URL is empty.
	File string `json:"file,omitempty"`
}

// Boot devices, as a boot order names them.
const (
	BootCDROM = "cdrom"
	BootDisk  = "disk"
	BootNet   = "net"
)

// BootDevices lists the devices a boot order may name.
var BootDevices = []string{BootCDROM, BootDisk, BootNet}

// DefaultBootOrder is the boot order of a machine whose hypervisor states none.
var DefaultBootOrder = []string{BootDisk}

// Media errors.
var (
	// ErrISONotFound: the hypervisor has no image of that name (404).
	ErrISONotFound = &Error{Kind: apierr.ErrNotFound, Reason: "iso_not_found"}
	// ErrChecksumMismatch: the image fetched does not match its checksum (400: the
	// caller's URL or checksum is wrong).
	ErrChecksumMismatch = &Error{Kind: apierr.ErrInvalidRequest, Reason: "checksum_mismatch"}
)

var isoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.iso$`)

// CheckISOName refuses a file name Proxmox would normalise or refuse: letters,
// digits, dots, dashes and underscores, ending in ".iso".
func CheckISOName(name string) error {
	if !isoName.MatchString(name) {
		return apierr.Invalid(apierr.Field("name", "must be letters, digits, '.', '-' or '_', ending in .iso"))
	}
	return nil
}

// ParseChecksum splits "sha256:<hex>" or "sha512:<hex>" into its algorithm and its
// lower-case hex digest, checking the digest's length.
func ParseChecksum(s string) (algo, digest string, err error) {
	algo, digest, _ = strings.Cut(s, ":")
	digest = strings.ToLower(digest)
	want := map[string]int{"sha256": 64, "sha512": 128}[algo]
	if _, herr := hex.DecodeString(digest); want == 0 || herr != nil || len(digest) != want {
		return "", "", apierr.Invalid(apierr.Field("checksum", `must be "sha256:<64 hex digits>" or "sha512:<128 hex digits>"`))
	}
	return algo, digest, nil
}

// NewChecksumHash returns the hash of a checksum's algorithm (ParseChecksum's).
func NewChecksumHash(algo string) hash.Hash {
	if algo == "sha512" {
		return sha512.New()
	}
	return sha256.New()
}

// CheckBootOrder refuses a boot order that is empty, names a device outside
// BootDevices, or names one twice.
func CheckBootOrder(order []string) error {
	if len(order) == 0 {
		return apierr.Invalid(apierr.Field("order", "must name at least one device"))
	}
	for i, dev := range order {
		if !slices.Contains(BootDevices, dev) {
			return apierr.Invalid(apierr.Field("order", "unknown device %q: one of %s", dev, strings.Join(BootDevices, ", ")))
		}
		if slices.Contains(order[:i], dev) {
			return apierr.Invalid(apierr.Field("order", "names %q twice", dev))
		}
	}
	return nil
}
