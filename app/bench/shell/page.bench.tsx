// The dashboard's frame alone (bench/README.md, "What a page costs"): the Shell every dashboard page renders, for a
// fixed account, with nothing in it; no session read, no database.
import { Shell } from "@/app/dashboard/_components/shell";

export const dynamic = "force-dynamic";

export default function BenchShellPage() {
  return (
    <Shell
      account={{ email: "bench@example.com", status: "verified", plan: "FREE_NEW" }}
      hasDeveloperKeys={false}
      current="/dashboard"
    >
      <p>ok</p>
    </Shell>
  );
}
