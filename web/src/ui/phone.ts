/** +8613812345678 → +86 138****5678: the header shows whose console this is without the whole number. */
export function maskPhone(phone: string): string {
  const match = /^\+86(\d{3})\d{4}(\d{4})$/.exec(phone);
  return match ? `+86 ${match[1]}****${match[2]}` : phone;
}
