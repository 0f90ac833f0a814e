/**
 * Per-scope HOME directories for agent subprocesses and the sealed child environment:
 * scope resolution from the settings cascade, the homes tree, the size budget and maintenance on
 * project/user delete and rename. Not API.
 */
package org.vancetope.worktarget.core.internal.home;
