// Properties that name no run count take fast-check's default (100); under a
// cap (`SYSPROMPT_PROPERTY_RUNS`, set by the mutation config) they take the cap.
import fc from 'fast-check'
import { propertyRuns } from '../property-runs.test-helper.js'

fc.configureGlobal({ numRuns: propertyRuns(100) })
