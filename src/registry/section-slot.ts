import type { AssembledSection, PromptSection } from './types.js'

/**
 * Per-registration memo slots. Each registered section has one object that
 * stands for its registration (the same object on every assembly while the
 * section stays registered); an assembly's sections array is mapped to the
 * slots of its sections, so memos of a section's keys and renders live as
 * long as the registration and cost one lookup each, whatever the number
 * of sections: no bounded global cache to outgrow. Nothing is added to the
 * section objects themselves (their shape stays the plain one). A sections
 * array a middleware replaced has no slots (memos then fall back to text
 * caches), and memos keyed by a slot still compare the text, so a rewritten
 * section or a function text that changed is never served a stale entry.
 */
const slots = new WeakMap<PromptSection, object>()
const slotsBySections = new WeakMap<readonly AssembledSection[], Map<AssembledSection, object>>()

/** The slot of a registration. */
function slotFor(registration: PromptSection): object {
  let slot = slots.get(registration)
  if (slot === undefined) {
    slot = {}
    slots.set(registration, slot)
  }
  return slot
}

/** Records that `sections[i]` came from `registrations[i]`. */
export function attachSlots(
  sections: readonly AssembledSection[],
  registrations: readonly PromptSection[],
): void {
  const map = new Map<AssembledSection, object>()
  for (let i = 0; i < sections.length; i++) map.set(sections[i]!, slotFor(registrations[i]!))
  slotsBySections.set(sections, map)
}

/** The slots of an assembly's sections, when the array is the one the registry built. */
export function slotsOf(
  sections: readonly AssembledSection[],
): ReadonlyMap<AssembledSection, object> | undefined {
  return slotsBySections.get(sections)
}
