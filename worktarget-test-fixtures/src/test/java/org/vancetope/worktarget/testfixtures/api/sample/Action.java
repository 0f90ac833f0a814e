package org.vancetope.worktarget.testfixtures.api.sample;

/** A functional interface, for the API dump's tests. */
@FunctionalInterface
public interface Action {
    /**
     * Runs.
     *
     * @throws Exception when it fails
     */
    void run() throws Exception;
}
