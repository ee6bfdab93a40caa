import type { AssembledSection, PromptSection } from './types.js'

/**
 * Per-registration memo slots. Each registered section has one slot that
 * stands for its registration (the same object on every assembly while the
 * section stays registered), and the memos of its keys and renders live in
 * the slot's own fields: an unchanged section costs a property read per
 * memo, whatever the number of sections, and nothing outgrows a bounded
 * global cache. Nothing is added to the section objects themselves (their
 * shape stays the plain one); an assembly records which slot each of its
 * sections came from, by index, on its sections array (a non-enumerable
 * symbol property, see RECORD). A sections array
 * a middleware replaced has no slots (memos then fall back to text caches),
 * an entry a middleware swapped in place is not its registration's, and
 * every memo kept in a slot still compares the text, so a rewritten section
 * or a function text that changed is never served a stale entry.
 */
export class SectionSlot {
  /** The registry's memo: the namespaced keys of `text` in `dialect`. */
  keys: { text: string; dialect: string; keys: readonly string[] } | undefined = undefined
  /** The compile layer's memo of this registration's renders (its own type, opaque here: the registry sits above compile). */
  renders: unknown = undefined
}

const slots = new WeakMap<PromptSection, SectionSlot>()

/** What an assembly's sections array held when the registry built it, and each entry's slot. */
export interface SectionSlots {
  sections: readonly AssembledSection[]
  slots: readonly SectionSlot[]
}

/**
 * Where an assembly's sections array keeps its record: a non-enumerable
 * symbol property of the array itself, not a WeakMap entry. A WeakMap entry
 * of every assembly would keep its record (and through it every section of
 * the assembly) alive across young-generation collections until a full one
 * finds the key dead: each recompile's sections would be copied and promoted
 * to the old generation, a cost that grows with the number of sections. On
 * the array, the record dies with it.
 */
const RECORD: unique symbol = Symbol('sysprompt.sectionSlots')

type WithRecord = { [RECORD]?: SectionSlots }

/** The slot of a registration. */
function slotFor(registration: PromptSection): SectionSlot {
  let slot = slots.get(registration)
  if (slot === undefined) {
    slot = new SectionSlot()
    slots.set(registration, slot)
  }
  return slot
}

/** Records that `sections[i]` came from `registrations[i]`. */
export function attachSlots(
  sections: readonly AssembledSection[],
  registrations: readonly PromptSection[],
): void {
  const list: SectionSlot[] = new Array(registrations.length)
  for (let i = 0; i < registrations.length; i++) list[i] = slotFor(registrations[i]!)
  Object.defineProperty(sections, RECORD, {
    value: { sections: sections.slice(), slots: list },
    enumerable: false,
    configurable: true,
    writable: true,
  })
}

/**
 * The slots of an assembly's sections, by index, when the array is the one
 * the registry built: `slots[i]` is `sections[i]`'s when `sectionAt(i)` is
 * still that section (see {@link slotAt}).
 */
export function slotsOf(sections: readonly AssembledSection[]): SectionSlots | undefined {
  return (sections as WithRecord)[RECORD]
}

/** The slot of `sections[i]`, when it is still the section the registry put there. */
export function slotAt(
  record: SectionSlots | undefined,
  sections: readonly AssembledSection[],
  i: number,
): SectionSlot | undefined {
  if (record === undefined) return undefined
  const section = sections[i]
  return section !== undefined && record.sections[i] === section ? record.slots[i] : undefined
}
