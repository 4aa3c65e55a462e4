package apitype

import (
	"time"
)

// Location is a hypervisor cluster machines are made in. The default location
// ("default", Default true) is the server's configured driver; the others are
// records with their driver's settings. A token secret is never shown.
type Location struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Driver  string           `json:"driver"`
	Default bool             `json:"default"`
	Proxmox *LocationProxmox `json:"proxmox,omitempty"`
	// CreatedAt and UpdatedAt are zero for the default location.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// OfferedLocation is a location as a tenant sees it (GET /api/client/locations), to
// choose where a new machine is made: nothing of its driver or settings. Available is
// false while the location's hypervisor_unavailable alert is open.
type OfferedLocation struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Default   bool   `json:"default"`
	Available bool   `json:"available"`
}

// LocationProxmox are a proxmox location's settings as shown: whether its token
// secret is stored (sealed), or the file the server reads it from.
type LocationProxmox struct {
	URL               string `json:"url"`
	TokenID           string `json:"token_id"`
	TokenSecretFile   string `json:"token_secret_file,omitempty"`
	TokenSecretStored bool   `json:"token_secret_stored"`
	TLSFingerprint    string `json:"tls_fingerprint,omitempty"`
}

// LocationProxmoxSpec are a proxmox location's settings as given: the token secret
// itself (stored sealed; the server needs --location-secret-key-file) or a file on
// the server holding it.
type LocationProxmoxSpec struct {
	URL             string `json:"url"`
	TokenID         string `json:"token_id"`
	TokenSecret     string `json:"token_secret,omitempty"`
	TokenSecretFile string `json:"token_secret_file,omitempty"`
	TLSFingerprint  string `json:"tls_fingerprint,omitempty"`
}

// LocationSpec is the body of CreateLocation: Driver "proxmox" with its settings,
// or "sim" for another simulated cluster.
type LocationSpec struct {
	Name    string               `json:"name"`
	Driver  string               `json:"driver"`
	Proxmox *LocationProxmoxSpec `json:"proxmox,omitempty"`
}

// LocationChange is the body of UpdateLocation: a new name, or the proxmox
// settings in whole (the secret given again).
type LocationChange struct {
	Name    *string              `json:"name,omitempty"`
	Proxmox *LocationProxmoxSpec `json:"proxmox,omitempty"`
}
