// Downloads started by buttons: a temporary <a download> clicked for the person, for a URL or for text made here.

/** Starts the download of `url` (same origin, so the `download` name is honoured). */
export function downloadUrl(url: string, fileName: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
}

/** Saves text as a file through a temporary link to a blob URL (no server round trip). */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  downloadUrl(url, fileName);
  // The click starts the download synchronously; revoking on the next tick keeps the URL alive for it.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
