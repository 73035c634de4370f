import { usePublicConfig } from '../../publicConfig';

/**
 * How the uptime screens stay current: asked again at the monitor's own pace (nothing newer can exist
 * sooner), while the tab is in view, and at once when it regains focus. No polling when the monitor is off.
 */
export function useMonitorRefresh() {
  const { monitorIntervalSecs } = usePublicConfig();
  return {
    pollingInterval: monitorIntervalSecs * 1000,
    skipPollingIfUnfocused: true,
    refetchOnFocus: true,
  };
}
