import { useCallback, useEffect, useRef, useState } from 'react';

/** How long the "Copied" indicator stays (spec §9). */
export const COPY_INDICATOR_MS = 2000;

/**
 * Copies text to the clipboard; `copied` stays true for two seconds after a successful copy, `failed`
 * says the browser refused (no clipboard permission, insecure page) so the screen can ask for a manual copy.
 */
export function useCopyToClipboard() {
  const [copied, setCopied] = useState(false);
  const [failed, setFailed] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(
    () => () => {
      clearTimeout(timer.current);
    },
    [],
  );

  const copy = useCallback(async (text: string): Promise<boolean> => {
    clearTimeout(timer.current);
    try {
      if (!('clipboard' in navigator)) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setFailed(false);
      setCopied(true);
      timer.current = setTimeout(() => {
        setCopied(false);
      }, COPY_INDICATOR_MS);
      return true;
    } catch {
      setCopied(false);
      setFailed(true);
      return false;
    }
  }, []);

  const reset = useCallback(() => {
    clearTimeout(timer.current);
    setCopied(false);
    setFailed(false);
  }, []);

  return { copied, failed, copy, reset };
}
