/** Whether what the person typed is the name asked for (surrounding spaces aside, case as written). */
export function nameConfirmed(typed: string, name: string): boolean {
  return typed.trim() === name.trim();
}
