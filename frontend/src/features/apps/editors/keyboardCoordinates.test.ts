import type { KeyboardCoordinateGetter } from '@dnd-kit/core';
import { describe, expect, it, vi } from 'vitest';

import { oneRowAtATime } from './keyboardCoordinates';

type Args = Parameters<KeyboardCoordinateGetter>[1];

/** Rows of very different heights, stacked from the top of the page. */
const heights = { a: 60, b: 400, c: 80, d: 300 };

function context(activeId: string, overId: string | null): Args {
  let top = 0;
  const rects = new Map<string, { top: number; left: number; width: number; height: number }>();
  for (const [id, height] of Object.entries(heights)) {
    rects.set(id, { top, left: 10, width: 500, height });
    top += height + 10;
  }
  const active = rects.get(activeId);
  return {
    active: activeId,
    currentCoordinates: { x: 10, y: 0 },
    context: {
      active: { id: activeId },
      over: overId ? { id: overId } : null,
      collisionRect: active,
      droppableRects: rects,
      droppableContainers: { getEnabled: () => [...rects.keys()].reverse().map((id) => ({ id })) },
    },
  } as unknown as Args;
}

const key = (code: string) => ({ code, preventDefault: vi.fn() }) as unknown as KeyboardEvent;

describe('oneRowAtATime', () => {
  it('puts the dragged row on the centre of the row above or below, in layout order', () => {
    // d (300 high) over c: one up lands on b's centre (top 70, height 400).
    expect(oneRowAtATime(key('ArrowUp'), context('d', 'c'))).toEqual({ x: 10, y: 70 + 200 - 150 });
    // a (60 high) not yet moved: one down lands on b's centre.
    expect(oneRowAtATime(key('ArrowDown'), context('a', null))).toEqual({
      x: 10,
      y: 70 + 200 - 30,
    });
  });

  it('stops at either end and ignores other keys', () => {
    expect(oneRowAtATime(key('ArrowUp'), context('a', 'a'))).toBeUndefined();
    expect(oneRowAtATime(key('ArrowDown'), context('b', 'd'))).toBeUndefined();
    expect(oneRowAtATime(key('ArrowLeft'), context('b', 'b'))).toBeUndefined();
  });
});
