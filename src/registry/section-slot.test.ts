import { describe, expect, it } from 'vitest'
import { createPromptRegistry } from './create-registry.js'
import { attachSlots, SectionSlot, slotAt, slotsOf } from './section-slot.js'
import type { AssembledSection } from './types.js'

// The memo slots the compile layer keeps its per-section renders in: one
// slot per registration, the same on every assembly while the registration
// stays, none for a section a middleware put in its place, and no trace in
// the sections array a caller sees.

const section = (name: string): AssembledSection => ({
  name,
  order: 0,
  text: name,
  dialect: 'mustache',
  stability: 'static',
})

describe('section slots', () => {
  it('gives each registration one slot, the same on every assembly, a new one once re-registered', async () => {
    const registry = createPromptRegistry()
    const dispose = registry.section({ name: 'a', order: 1, text: 'A' })
    registry.section({ name: 'b', order: 2, text: 'B' })
    const first = (await registry.assemble()).sections
    const second = (await registry.assemble()).sections
    const slots = (sections: readonly AssembledSection[]) =>
      sections.map((_, i) => slotAt(slotsOf(sections), sections, i))
    const one = slots(first)
    expect(one).toHaveLength(4)
    for (const slot of one) expect(slot).toBeInstanceOf(SectionSlot)
    expect(new Set(one).size).toBe(4)
    expect(slots(second)).toEqual(one)
    slots(second).forEach((slot, i) => {
      expect(slot).toBe(one[i])
    })
    dispose()
    registry.section({ name: 'a', order: 1, text: 'A' })
    const third = slots((await registry.assemble()).sections)
    expect(third[2]).not.toBe(one[2])
    expect(third[3]).toBe(one[3])
  })

  it('has no slot for an entry swapped in place, past the end, or in an array it did not build', () => {
    const sections = [section('a'), section('b')]
    const registrations = sections.map((s) => ({ name: s.name, order: 0, text: s.text }))
    attachSlots(sections, registrations)
    const record = slotsOf(sections)
    expect(record?.slots).toHaveLength(2)
    expect(slotAt(record, sections, 0)).toBe(record?.slots[0])
    expect(slotAt(record, sections, 1)).toBe(record?.slots[1])
    expect(slotAt(record, sections, 2)).toBeUndefined()
    sections[1] = section('b')
    expect(slotAt(record, sections, 1)).toBeUndefined()
    expect(slotAt(record, sections, 0)).toBe(record?.slots[0])
    expect(slotsOf([section('a')])).toBeUndefined()
    expect(slotAt(undefined, sections, 0)).toBeUndefined()
  })

  it('keeps the record out of sight (keys, JSON, equality) and lets it be attached again', () => {
    const sections = [section('a')]
    const registration = { name: 'a', order: 0, text: 'a' }
    attachSlots(sections, [registration])
    expect(Object.keys(sections)).toEqual(['0'])
    expect(JSON.stringify(sections)).toBe(JSON.stringify([section('a')]))
    expect(sections).toEqual([section('a')])
    const before = slotsOf(sections)!.slots[0]
    // Attached again (a second assembly's record on the same array): the same registration, the same slot.
    attachSlots(sections, [registration])
    expect(slotsOf(sections)!.slots[0]).toBe(before)
    // The record holds the sections as they were when attached.
    sections.push(section('b'))
    expect(slotsOf(sections)!.sections).toHaveLength(1)
  })

  it('starts empty: no key memo, no render memo', () => {
    const slot = new SectionSlot()
    expect(slot.keys).toBeUndefined()
    expect(slot.renders).toBeUndefined()
  })
})
