/** Keys are made here only, from validated ids: nothing a client sends becomes a path. */
const KEY = /^fil_[0-9a-z]{26}\/(original|w[0-9]{1,4}\.webp)$/;

export function originalKey(fileId: string): string {
  return checkedKey(`${fileId}/original`);
}

export function variantKey(fileId: string, width: number): string {
  return checkedKey(`${fileId}/w${width}.webp`);
}

export function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid file store key ${JSON.stringify(key)}`);
  return key;
}
