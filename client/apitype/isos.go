package apitype

import (
	"time"
)

// ISO is an image of the ISO library: public (TenantID nil) or one tenant's.
type ISO struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	URL      string  `json:"url"`
	Checksum string  `json:"checksum"`
	TenantID *string `json:"tenant_id"`
	// Status is pending while the image is fetched (awaiting_upload, for an image
	// added with Upload, until its content is uploaded), then ready or failed (Error
	// says why).
	Status    string    `json:"status"`
	Error     *string   `json:"error"`
	SizeBytes int64     `json:"size_bytes"`
	File      string    `json:"file"`
	TaskID    string    `json:"task_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ISOSpec is the body of AddISO (operators).
type ISOSpec struct {
	Name string `json:"name"`
	// URL is where the image is fetched from; left out with Upload.
	URL string `json:"url,omitempty"`
	// Upload adds the image awaiting its content, which UploadISO sends.
	Upload bool `json:"upload,omitempty"`
	// Checksum is "sha256:<hex>" or "sha512:<hex>".
	Checksum string `json:"checksum"`
	// TenantID, when set, makes the image that tenant's alone.
	TenantID *string `json:"tenant_id,omitempty"`
}

// ISOAdded is the answer of AddISO: the image, pending, and the task of its fetch.
type ISOAdded struct {
	ISO  ISO  `json:"iso"`
	Task Task `json:"task"`
}

// MountedISO is the image in a machine's CD-ROM drive.
type MountedISO struct {
	ISOID string `json:"iso_id"`
	Name  string `json:"name"`
	File  string `json:"file"`
}
