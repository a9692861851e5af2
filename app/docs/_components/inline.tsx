/**
 * A sentence of our own texts with `code` spans (the catalogue's and the schemas' descriptions use backticks):
 * each span becomes <code>, everything else stays text, so nothing is parsed as HTML.
 */
export function InlineText({ text }: { text: string }) {
  const parts = text.split("`");
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed sentence, never reordered
          <code key={index}>{part}</code>
        ) : (
          part
        ),
      )}
    </>
  );
}
