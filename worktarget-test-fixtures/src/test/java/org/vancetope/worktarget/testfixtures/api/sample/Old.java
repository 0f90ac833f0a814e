package org.vancetope.worktarget.testfixtures.api.sample;

/**
 * Deprecations, for the API dump's tests.
 *
 * @deprecated a sample
 */
@Deprecated
public class Old {
    /** Its constructor. */
    public Old() {
    }

    /**
     * Going away.
     *
     * @deprecated a sample
     */
    @Deprecated(forRemoval = true)
    public void gone() {
    }
}
