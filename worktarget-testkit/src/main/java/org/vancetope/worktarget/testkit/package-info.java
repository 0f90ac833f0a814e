/**
 * Strict fakes of the SPI seams and abstract contract suites, for the tests of WorkTarget's own
 * modules and of integrators' backends. Every fake can fail a test at teardown when something leaked
 * (a call still in flight, a job still running, a pending transfer).
 *
 * <pre>{@code
 * FakePeers peers = new FakePeers().client("acme", "s1", tools);
 * WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).peers(peers).build();
 * ...
 * @AfterEach void noLeaks() { peers.close(); }   // fails when a call is still in flight
 * }</pre>
 */
package org.vancetope.worktarget.testkit;
