"use client";

import { clsx } from "clsx";
import { type ClipboardEvent, type DragEvent, useRef, useState } from "react";
import { Field } from "@/app/_components/ui/field";
import { useT } from "@/app/_i18n/client";
import type { FileDto } from "@/server/files/schema";

/** POST /v1/files's cap (docs/api.md, "Files"), checked before a byte is sent. */
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

type UploadError = { status: number; message: string | null };

/**
 * Sends one file to the dashboard's upload door (`POST /api/files`, the session cookie; docs/ui.md, "Photos") with
 * XMLHttpRequest, whose upload events give the progress fetch does not.
 */
export function uploadPhoto(file: File, onProgress: (percent: number) => void): Promise<FileDto> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/api/files");
    request.responseType = "json";
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    };
    request.onload = () => {
      const body = request.response as { file?: FileDto; error?: { message?: string } } | null;
      if (request.status === 201 && body?.file) resolve(body.file);
      else reject({ status: request.status, message: body?.error?.message ?? null } satisfies UploadError);
    };
    request.onerror = () => reject({ status: 0, message: null } satisfies UploadError);
    const form = new FormData();
    form.append("file", file);
    request.send(form);
  });
}

/**
 * A photo taken by file picker, drag and drop or paste, uploaded at once with its progress; the preview is
 * `previewUrl` (the field's value, set by `onUploaded`). Refusals show next to the field: too big and not an
 * image in the interface's words, anything else (the plan's storage quota) as the catalogue's message.
 */
export function PhotoField({
  id,
  label,
  hint,
  previewUrl,
  previewAlt,
  onUploaded,
  error,
}: {
  id: string;
  label: string;
  hint?: string;
  previewUrl: string | null;
  previewAlt: string;
  onUploaded: (file: FileDto) => void;
  /** A server error about the field this photo fills. */
  error?: string;
}) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [isOver, setIsOver] = useState(false);

  async function take(file: File | null | undefined) {
    if (!file) return;
    // The field shows what was uploaded (the preview), never a file that was refused.
    if (input.current) input.current.value = "";
    setProblem(null);
    if (file.size > MAX_PHOTO_BYTES) return setProblem(t("photo.tooBig"));
    if (!file.type.startsWith("image/")) return setProblem(t("photo.notImage"));
    setProgress(0);
    try {
      onUploaded(await uploadPhoto(file, setProgress));
    } catch (caught) {
      const refusal = caught as UploadError;
      setProblem(
        refusal.status === 413
          ? t("photo.tooBig")
          : refusal.status === 400
            ? t("photo.notImage")
            : (refusal.message ?? t("photo.failed")),
      );
    } finally {
      setProgress(null);
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setIsOver(false);
    void take(event.dataTransfer.files[0]);
  };
  const onPaste = (event: ClipboardEvent) => {
    const file = Array.from(event.clipboardData.files)[0];
    if (!file) return;
    event.preventDefault();
    void take(file);
  };
  const shown = previewUrl && /^https?:\/\/\S+$/i.test(previewUrl.trim()) ? previewUrl.trim() : null;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the drop and paste target around the file input, which stays the keyboard's way in
    <div
      data-testid={`${id}-photo`}
      onDragOver={(event) => {
        event.preventDefault();
        setIsOver(true);
      }}
      onDragLeave={() => setIsOver(false)}
      onDrop={onDrop}
      onPaste={onPaste}
      className={clsx(
        "flex flex-col gap-3 rounded-lg border border-dashed p-3 sm:flex-row sm:items-start",
        isOver ? "border-primary bg-surface-muted" : "border-border-strong",
      )}
    >
      <div className="min-w-0 flex-1 space-y-2">
        <Field id={id} label={label} hint={hint ?? t("photo.hint")} error={problem ?? error}>
          <input
            ref={input}
            type="file"
            accept="image/jpeg,image/png,image/webp,image/gif,image/avif"
            disabled={progress !== null}
            onChange={(event) => void take(event.target.files?.[0])}
            className="block w-full min-w-0 text-sm file:mr-3 file:rounded-md file:border file:border-border-strong file:bg-surface file:px-3 file:py-1.5 file:text-sm file:font-medium"
          />
        </Field>
        {progress !== null ? (
          <div className="flex items-center gap-2 text-sm" role="status">
            <progress value={progress} max={100} className="h-2 w-40" aria-label={t("photo.progress")} />
            <span>{t("photo.uploading", { percent: progress })}</span>
          </div>
        ) : null}
      </div>
      {shown ? (
        <figure className="w-32 shrink-0">
          {/* biome-ignore lint/performance/noImgElement: the merchant's own image, previewed as it is */}
          <img
            src={shown}
            alt={previewAlt}
            width={128}
            height={128}
            data-testid={`${id}-preview`}
            className="aspect-square w-32 rounded-md border border-border object-cover"
          />
        </figure>
      ) : null}
    </div>
  );
}
