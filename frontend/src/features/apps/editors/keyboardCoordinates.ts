import type { KeyboardCoordinateGetter } from '@dnd-kit/core';

/**
 * Moves a setting picked up with the keyboard one place per arrow press, whatever the heights of the rows.
 * (dnd-kit's `sortableKeyboardCoordinates` finds the next row by its corners, which skips or sticks when
 * rows differ much in height, as setting rows do.) The dragged row's centre is put on the centre of the
 * neighbouring row in layout order, so that `closestCenter` picks exactly that row.
 */
export const oneRowAtATime: KeyboardCoordinateGetter = (event, { context }) => {
  const step = event.code === 'ArrowDown' ? 1 : event.code === 'ArrowUp' ? -1 : 0;
  if (step === 0) return undefined;
  event.preventDefault();
  const { active, over, collisionRect, droppableRects, droppableContainers } = context;
  if (!active || !collisionRect) return undefined;
  const rows = droppableContainers
    .getEnabled()
    .map((container) => ({ id: container.id, rect: droppableRects.get(container.id) }))
    .filter((row) => row.rect !== undefined)
    .sort((a, b) => (a.rect?.top ?? 0) - (b.rect?.top ?? 0));
  const here = rows.findIndex((row) => row.id === (over?.id ?? active.id));
  const target = rows[here + step]?.rect;
  if (here < 0 || !target) return undefined;
  return {
    x: target.left,
    y: target.top + target.height / 2 - collisionRect.height / 2,
  };
};
