/**
 * The transfer state machines behind {@code org.vancetope.worktarget.core.transfer.TransferEndpoint}:
 * sender and receiver, their transition tables, the path sandbox and hashing. Not API.
 */
package org.vancetope.worktarget.core.internal.transfer;
