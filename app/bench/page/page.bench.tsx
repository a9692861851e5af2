// The framework's floor for a page (bench/README.md, "What a page costs"): a dynamic page with nothing on it,
// under the root layout every page has (interface language and theme from cookies, the text provider).
export const dynamic = "force-dynamic";

export default function BenchPage() {
  return (
    <main>
      <p>ok</p>
    </main>
  );
}
