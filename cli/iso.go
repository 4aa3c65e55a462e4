package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// isoCmd is the ISO library: tenants list and show the images they see (the public
// ones and their own); operators add (by URL and checksum, or by uploading a file)
// and delete them.
func (a *app) isoCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list the ISO images you see, oldest first",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.ISOs(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "STATUS", "SIZE", "TENANT", "CREATED")
				for _, i := range items {
					output.Row(w, i.ID, i.Name, i.Status, output.BytesIEC(float64(i.SizeBytes)), output.Str(i.TenantID), output.When(i.CreatedAt))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show an ISO image",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			i, err := c.GetISO(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printISO(p, i)
		},
	}

	var wf cmdline.WaitFlags
	add := &cobra.Command{
		Use:   "add NAME URL CHECKSUM [--tenant ID] [--wait]",
		Short: "add an ISO image by URL and checksum (sha256:<hex> or sha512:<hex>); operators only",
		Long: `Adds an image to the ISO library: it is fetched and verified against its checksum as
a task (--wait follows it; an image whose checksum does not match fails). The image
is public, or with --tenant that tenant's alone.`,
		Args: cmdline.Args(3, "NAME URL CHECKSUM"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			spec := client.ISOSpec{Name: args[0], URL: args[1], Checksum: args[2]}
			if t := a.tenantScope(); t != "" {
				spec.TenantID = &t
			}
			added, err := c.AddISO(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return a.started(cmd.Context(), c, p, &added.Task, wf)
		},
	}
	wf.Add(add)

	del := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "delete an ISO image (not while a machine's drive holds it); operators only",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteISO(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted ISO %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "iso", Short: "the ISO library: list, show, add, upload, delete"}, list, show, add, a.isoUploadCmd(), del)
}

// isoUploadCmd is `iso upload FILE --name N`: the image's checksum computed here, the
// image added awaiting its content, then the file sent.
func (a *app) isoUploadCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "upload FILE --name NAME [--tenant ID]",
		Short: "upload an ISO image from a local file; operators only",
		Long: `Adds an image to the ISO library from a file of yours: its sha256 is computed here,
the image is added awaiting its content, and the file is sent; the server checks it
against the checksum before it answers the image, ready. The image is public, or with
--tenant that tenant's alone. The server's VMPLANE_ISO_MAX_BYTES bounds its size.`,
		Args: cmdline.Args(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return cmdline.Usagef("upload needs --name, the image's name in the library")
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			h := sha256.New()
			size, err := io.Copy(h, f)
			if err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			spec := client.ISOSpec{Name: name, Upload: true, Checksum: "sha256:" + hex.EncodeToString(h.Sum(nil))}
			if t := a.tenantScope(); t != "" {
				spec.TenantID = &t
			}
			added, err := c.AddISO(cmd.Context(), spec)
			if err != nil {
				return err
			}
			iso, err := c.UploadISO(cmd.Context(), added.ISO.ID, f, size)
			if err != nil {
				return err
			}
			return printISO(p, iso)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the image's name in the library")
	return cmd
}

func printISO(p output.Printer, i *client.ISO) error {
	return p.Print(i, func(w *tabwriter.Writer) {
		output.Field(w, "ID", i.ID)
		output.Field(w, "Name", i.Name)
		output.Field(w, "URL", i.URL)
		output.Field(w, "Checksum", i.Checksum)
		output.Field(w, "Tenant", output.Str(i.TenantID))
		output.Field(w, "Status", i.Status)
		output.Field(w, "Error", output.Str(i.Error))
		output.Field(w, "Size", output.BytesIEC(float64(i.SizeBytes)))
		output.Field(w, "Task", i.TaskID)
		output.Field(w, "Created", output.When(i.CreatedAt))
	})
}

// mediaTask runs a media call on machine id: through the client area for a tenant's
// machine, through /api/virt for an operator's machine of no tenant.
func (a *app) mediaTask(cmd *cobra.Command, id string, wf cmdline.WaitFlags, tenant, virt func(c *client.Client) (*client.Task, error)) error {
	c, p, err := a.setup()
	if err != nil {
		return err
	}
	mc, ok, err := machinecmd.ClientArea(cmd.Context(), c, a.tenantScope(), id)
	if err != nil {
		return err
	}
	call := tenant
	if !ok {
		call = virt
	}
	t, err := call(mc)
	if err != nil {
		return err
	}
	return a.started(cmd.Context(), mc, p, t, wf)
}

// machineMediaCmds are `machine media mount|eject`, `machine boot-order` and
// `machine rescue on|off`.
func (a *app) machineMediaCmds() []*cobra.Command {
	var mwf, ewf, bwf, rwf cmdline.WaitFlags
	mount := &cobra.Command{
		Use:   "mount ID ISO_ID [--wait]",
		Short: "put an ISO image of the library into a machine's CD-ROM drive",
		Args:  cmdline.Args(2, "ID ISO_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mediaTask(cmd, args[0], mwf,
				func(c *client.Client) (*client.Task, error) { return c.MountISO(cmd.Context(), args[0], args[1]) },
				func(c *client.Client) (*client.Task, error) { return c.VirtMountISO(cmd.Context(), args[0], args[1]) })
		},
	}
	mwf.Add(mount)
	eject := &cobra.Command{
		Use:   "eject ID [--wait]",
		Short: "empty a machine's CD-ROM drive",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mediaTask(cmd, args[0], ewf,
				func(c *client.Client) (*client.Task, error) { return c.EjectISO(cmd.Context(), args[0]) },
				func(c *client.Client) (*client.Task, error) { return c.VirtEjectISO(cmd.Context(), args[0]) })
		},
	}
	ewf.Add(eject)
	boot := &cobra.Command{
		Use:   "boot-order ID DEVICE... [--wait]",
		Short: "set the devices a machine boots from, in order: cdrom, disk, net",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cmdline.Usagef("boot-order takes the machine's ID and at least one DEVICE (cdrom, disk, net)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mediaTask(cmd, args[0], bwf,
				func(c *client.Client) (*client.Task, error) {
					return c.SetBootOrder(cmd.Context(), args[0], args[1:]...)
				},
				func(c *client.Client) (*client.Task, error) {
					return c.VirtSetBootOrder(cmd.Context(), args[0], args[1:]...)
				})
		},
	}
	bwf.Add(boot)
	rescue := func(on bool, use, short string) *cobra.Command {
		cmd := &cobra.Command{
			Use:   use + " ID [--wait]",
			Short: short,
			Args:  cmdline.Args(1, "ID"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return a.mediaTask(cmd, args[0], rwf,
					func(c *client.Client) (*client.Task, error) { return c.SetRescue(cmd.Context(), args[0], on) },
					func(c *client.Client) (*client.Task, error) { return c.VirtSetRescue(cmd.Context(), args[0], on) })
			},
		}
		rwf.Add(cmd)
		return cmd
	}
	return []*cobra.Command{
		cmdline.Group(&cobra.Command{Use: "media", Short: "a machine's CD-ROM drive: mount, eject"}, mount, eject),
		boot,
		cmdline.Group(&cobra.Command{Use: "rescue", Short: "boot a machine's rescue system: on, off"},
			rescue(true, "on", "boot the operator's rescue image, CD-ROM first (the machine restarts; its disks stay attached)"),
			rescue(false, "off", "eject the rescue image and boot from the machine's disks again (a running machine restarts)")),
	}
}
