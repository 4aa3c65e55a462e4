package machinecmd

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a verbs) machineTrafficCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "traffic ID",
		Short: "show a machine's network traffic this month, its plan's allowance and what is left",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			mc, ok, err := ClientArea(cmd.Context(), c, a.TenantScope(), args[0])
			if err != nil {
				return err
			}
			var tr *client.MachineTraffic
			if ok {
				tr, err = mc.MyMachineTraffic(cmd.Context(), args[0])
			} else {
				tr, err = c.MachineTraffic(cmd.Context(), args[0])
			}
			if err != nil {
				return err
			}
			return p.Print(tr, func(w *tabwriter.Writer) {
				opt := func(v *int64) string {
					if v == nil {
						return "unlimited"
					}
					return output.Num(*v)
				}
				output.Field(w, "Month", tr.Month)
				output.Field(w, "In (bytes)", output.Num(tr.InBytes))
				output.Field(w, "Out (bytes)", output.Num(tr.OutBytes))
				output.Field(w, "Total (bytes)", output.Num(tr.TotalBytes))
				output.Field(w, "Allowance (bytes)", opt(tr.AllowanceBytes))
				output.Field(w, "Left (bytes)", opt(tr.RemainingBytes))
				if tr.Exceeded != nil {
					output.Field(w, "Exceeded", output.When(tr.Exceeded.At)+", "+tr.Exceeded.Action)
				}
			})
		},
	}
}
