/**
 * The command line of {@code worktarget.jar}: {@code daemon}, {@code serve} and {@code call}. Entry
 * point: {@link org.vancetope.worktarget.backend.daemon.cli.Main}.
 */
package org.vancetope.worktarget.backend.daemon.cli;
