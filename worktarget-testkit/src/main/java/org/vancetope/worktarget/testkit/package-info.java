/**
 * Strict fakes of the SPI seams and abstract contract suites, for the tests of WorkTarget's own
 * modules and of integrators' backends. Every fake can fail a test at teardown when something leaked
 * (a call still in flight, a job still running, a pending transfer).
 *
 * <pre>{@code
 * InMemoryProcessStore store = new InMemoryProcessStore();
 * store.add(TestProcesses.process("p1").session("s1").build());
 * ...
 * @AfterEach void noLeaks() { clients.assertNoCallsInFlight(); }
 * }</pre>
 */
package org.vancetope.worktarget.testkit;
