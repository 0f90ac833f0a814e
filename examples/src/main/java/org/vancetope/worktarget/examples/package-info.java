/**
 * Small runnable programs, one idea each. Start with {@link org.vancetope.worktarget.examples.Tour}.
 */
package org.vancetope.worktarget.examples;
