package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
)

// The ISO library (/api/resources/isos) and a machine's CD-ROM drive, boot order and
// rescue system, in the client area (tenants) and on the hypervisor routes
// (operators, the Virt calls).

// Boot devices of SetBootOrder.
const (
	BootCDROM = "cdrom"
	BootDisk  = "disk"
	BootNet   = "net"
)

type mediaRequest struct {
	ISOID string `json:"iso_id"`
}

type bootOrderRequest struct {
	Order []string `json:"order"`
}

type rescueRequest struct {
	Enabled bool `json:"enabled"`
}

// ISOsPage reads one page of the images the caller sees (a tenant: the public ones
// and its own).
func (c *Client) ISOsPage(ctx context.Context, opt ListOptions) (Page[ISO], error) {
	return getPage[ISO](ctx, c, "/api/resources/isos", opt.values())
}

// ISOs yields every image the caller sees, in creation order.
func (c *Client) ISOs(ctx context.Context, opt ListOptions) iter.Seq2[ISO, error] {
	return all(ctx, opt, c.ISOsPage)
}

// GetISO reads one image; another tenant's is ErrNotFound.
func (c *Client) GetISO(ctx context.Context, id string) (*ISO, error) {
	return getRecord[ISO](ctx, c, "/api/resources/isos/"+esc(id))
}

// AddISO adds an image to the library (operators) and returns it with the task that
// fetches and verifies it; follow the task (WaitTask) to learn whether it is ready.
func (c *Client) AddISO(ctx context.Context, spec ISOSpec) (*ISOAdded, error) {
	return callFor[ISOAdded](ctx, c, http.MethodPost, "/api/resources/isos", nil, spec)
}

// UploadISO sends the content of an image added with Upload (operators): size bytes
// read from body, streamed (never held whole), which the server checks against the
// image's checksum before it answers the image, ready. A content that does not match
// is ErrChecksumMismatch (the image failed; add it again), a size over the server's
// limit ErrPayloadTooLarge, an image not awaiting its content ErrConflict. The body
// cannot be read twice, so the upload is sent once, never retried.
func (c *Client) UploadISO(ctx context.Context, id string, body io.Reader, size int64) (*ISO, error) {
	path := "/api/resources/isos/" + esc(id) + "/content"
	if id == "" {
		return nil, fmt.Errorf("vmplane client: PUT %s: an id in the path is empty", path)
	}
	tok, err := c.c.token(ctx, "")
	if err != nil {
		return nil, err
	}
	base := c.c.bases[int(c.c.cur.Load())%len(c.c.bases)]
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+path, io.LimitReader(body, size))
	if err != nil {
		return nil, fmt.Errorf("vmplane client: PUT %s: %w", path, err)
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.c.agent)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := c.c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("vmplane client: PUT %s: %w", path, err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("vmplane client: PUT %s: read answer: %w", path, err)
	}
	if res.StatusCode >= 300 {
		return nil, errorFrom(res, answer)
	}
	var iso ISO
	if err := json.Unmarshal(answer, &iso); err != nil {
		return nil, fmt.Errorf("vmplane client: PUT %s: decode answer: %w", path, err)
	}
	return &iso, nil
}

// DeleteISO deletes an image (operators); one in a machine's drive is ErrConflict.
func (c *Client) DeleteISO(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/isos/"+esc(id))
}

// media starts a task on the media routes of the machine path base.
func (c *Client) media(ctx context.Context, method, path string, body any, tenant bool) (*Task, error) {
	r := request{method: method, path: path, body: body}
	if tenant {
		r.query = c.clientQuery()
	}
	return c.startTask(ctx, r)
}

// MountISO puts a ready image into one of the tenant's machines' CD-ROM drive and
// returns the task.
func (c *Client) MountISO(ctx context.Context, id, isoID string) (*Task, error) {
	return c.media(ctx, http.MethodPost, c.machinePath(id)+"/media", mediaRequest{ISOID: isoID}, true)
}

// EjectISO empties the machine's CD-ROM drive and returns the task.
func (c *Client) EjectISO(ctx context.Context, id string) (*Task, error) {
	return c.media(ctx, http.MethodDelete, c.machinePath(id)+"/media", nil, true)
}

// SetBootOrder sets the devices the machine boots from (BootCDROM, BootDisk,
// BootNet, each at most once) and returns the task.
func (c *Client) SetBootOrder(ctx context.Context, id string, order ...string) (*Task, error) {
	return c.media(ctx, http.MethodPut, c.machinePath(id)+"/boot-order", bootOrderRequest{Order: order}, true)
}

// SetRescue boots the machine into the operator's rescue image (on) or back from
// its disks (off), and returns the task.
func (c *Client) SetRescue(ctx context.Context, id string, on bool) (*Task, error) {
	return c.media(ctx, http.MethodPost, c.machinePath(id)+"/rescue", rescueRequest{Enabled: on}, true)
}

// VirtMountISO is MountISO on any machine (operators).
func (c *Client) VirtMountISO(ctx context.Context, id, isoID string) (*Task, error) {
	return c.media(ctx, http.MethodPost, "/api/virt/vms/"+esc(id)+"/media", mediaRequest{ISOID: isoID}, false)
}

// VirtEjectISO is EjectISO on any machine (operators).
func (c *Client) VirtEjectISO(ctx context.Context, id string) (*Task, error) {
	return c.media(ctx, http.MethodDelete, "/api/virt/vms/"+esc(id)+"/media", nil, false)
}

// VirtSetBootOrder is SetBootOrder on any machine (operators).
func (c *Client) VirtSetBootOrder(ctx context.Context, id string, order ...string) (*Task, error) {
	return c.media(ctx, http.MethodPut, "/api/virt/vms/"+esc(id)+"/boot-order", bootOrderRequest{Order: order}, false)
}

// VirtSetRescue is SetRescue on any machine (operators).
func (c *Client) VirtSetRescue(ctx context.Context, id string, on bool) (*Task, error) {
	return c.media(ctx, http.MethodPost, "/api/virt/vms/"+esc(id)+"/rescue", rescueRequest{Enabled: on}, false)
}
