//! How a worker isolates itself on Linux, before it reads the call: namespaces, a user of
//! no rights, rlimits, Landlock and a seccomp filter, in that order. Only the network
//! namespace depends on the policy: none for `network = "any"`, whose tool uses the host's.
//!
//! The few calls libc makes no safe wrapper for (`unshare`, `fork`, the user's ids, the
//! loopback's flags) are here, each where the process is known to have one thread.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::io::Write;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use mcp_runtime_core::sandbox::{Network, OPEN_FILES};
use rustix::process::{Resource, Rlimit, setrlimit};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::Support;
use super::protocol::{Config, Ended, Line};

/// The user a worker started by root runs its tool as.
const NOBODY: u32 = 65_534;

/// The Landlock ABI whose rights the worker asks for; a kernel with less gives what it has
/// (and the support report says which).
const LANDLOCK_ABI: ABI = ABI::V6;

/// What a worker lacks to isolate itself: its sentence completes "the sandbox is
/// unavailable: this machine lacks …" where the support report is read.
#[derive(Debug, thiserror::Error)]
enum Missing {
    /// Threads were started before the worker isolated itself.
    #[error(
        "the worker had {0} threads before it isolated itself, and a thread it did not start cannot be confined: call `mcp_runtime::sandbox::dispatch()` (or `cli::run`) before anything starts a thread"
    )]
    Threads(usize),
    /// A worker started by root could not leave root.
    #[error("the worker could not leave root for uid {NOBODY}: {0}")]
    Root(std::io::Error),
    /// No network namespace, which a loopback of the call's own needs.
    #[error(
        "a network namespace, which `network = \"loopback\"` needs (a loopback of the call's own)"
    )]
    NetworkNamespace,
    /// The namespace's loopback did not come up.
    #[error("the loopback of the call's network namespace did not come up: {0}")]
    Loopback(std::io::Error),
    /// An rlimit could not be set.
    #[error("the worker could not set its limits: {0}")]
    Limits(rustix::io::Errno),
    /// Landlock, pretended missing.
    #[error("Landlock (pretended missing with MCP_RUNTIME_SANDBOX_UNAVAILABLE)")]
    PretendedLandlock,
    /// Landlock could not restrict the worker.
    #[error(transparent)]
    Landlock(#[from] LandlockError),
    /// A seccomp filter, pretended missing.
    #[error("a seccomp filter (pretended missing with MCP_RUNTIME_SANDBOX_UNAVAILABLE)")]
    PretendedSeccomp,
    /// The seccomp filter could not be installed.
    #[error("a seccomp filter: {0}")]
    Seccomp(#[from] SeccompError),
}

/// Why Landlock does not restrict the worker.
#[derive(Debug, thiserror::Error)]
enum LandlockError {
    /// The ruleset could not be made or enforced.
    #[error("Landlock: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// A path of the policy could not be granted.
    #[error("Landlock cannot grant `{}`: {source}", path.display())]
    Grant {
        /// The path.
        path: std::path::PathBuf,
        /// Why.
        source: landlock::RulesetError,
    },
    /// The kernel has Landlock but does not enable it.
    #[error("Landlock, which this kernel has but does not enable")]
    NotEnabled,
    /// The kernel has no Landlock.
    #[error("Landlock, which this kernel lacks")]
    Lacking,
    /// The kernel enforced the ruleset without saying at which ABI.
    #[error("Landlock, whose status this kernel did not report")]
    Unreported,
}

/// Why the seccomp filter could not be installed.
#[derive(Debug, thiserror::Error)]
enum SeccompError {
    /// seccompiler does not know this architecture.
    #[error("{0:?}")]
    Architecture(seccompiler::BackendError),
    /// A rule or the filter could not be built.
    #[error(transparent)]
    Filter(#[from] seccompiler::BackendError),
    /// The kernel did not take the filter.
    #[error(transparent)]
    Apply(#[from] seccompiler::Error),
}

/// Isolates the process as `config` says, or says what is missing. With a PID namespace
/// it forks: only the child returns, and the parent waits for it, writes how it ended to
/// `out` and exits.
pub(super) fn isolate(config: &Config, out: &mut dyn Write) -> Result<Support, Support> {
    let mut support = Support::default();
    match confine(config, out, &mut support) {
        Ok(()) => Ok(support),
        Err(missing) => {
            support.missing = Some(missing.to_string());
            Err(support)
        }
    }
}

/// The steps of [`isolate`], each noted in `support` once taken.
fn confine(config: &Config, out: &mut dyn Write, support: &mut Support) -> Result<(), Missing> {
    let pretend = config.pretend_missing.as_deref();
    let pretends = |what: &str| pretend == Some(what) || pretend == Some("all");
    let threads = std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count);
    if threads != 1 {
        return Err(Missing::Threads(threads));
    }
    separate(config, support, pretends("namespaces"))?;
    if support.namespaces.iter().any(|entered| entered == "pid") {
        fork_and_wait(out);
    }
    // The tool's process from here: it dies with the one waiting for it.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    limit(config).map_err(Missing::Limits)?;
    if pretends("landlock") {
        return Err(Missing::PretendedLandlock);
    }
    support.landlock_abi = Some(landlock(config)?);
    if pretends("seccomp") {
        return Err(Missing::PretendedSeccomp);
    }
    seccomp(config.network)?;
    support.seccomp = true;
    Ok(())
}

/// Leaves root, if the worker is root, then enters the namespaces (unless they are
/// pretended missing), and brings up the loopback of a `loopback` network's own.
fn separate(config: &Config, support: &mut Support, pretended: bool) -> Result<(), Missing> {
    // Root leaves root first, so that the user namespace below is an unprivileged one of
    // nobody's: its own count of processes, and no right over root's files.
    if rustix::process::getuid().is_root() {
        become_nobody().map_err(Missing::Root)?;
        support.user = Some(NOBODY);
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    if !pretended {
        support.namespaces = enter_namespaces(uid, gid, config.network);
    }
    if config.network == Network::Loopback {
        if !support
            .namespaces
            .iter()
            .any(|entered| entered == "network")
        {
            return Err(Missing::NetworkNamespace);
        }
        loopback_up().map_err(Missing::Loopback)?;
    }
    Ok(())
}

/// New user and PID namespaces, and a network namespace unless the policy's network is
/// the host's (`any`), as many as the kernel allows; the names of those entered.
fn enter_namespaces(uid: u32, gid: u32, network: Network) -> Vec<String> {
    let (net, pid, user) = (libc::CLONE_NEWNET, libc::CLONE_NEWPID, libc::CLONE_NEWUSER);
    let tries: &[(libc::c_int, &[&str])] = match network {
        // The host's network namespace is the one the tool is granted: it stays in it.
        Network::Any => &[(user | pid, &["user", "pid"]), (user, &["user"])],
        Network::None | Network::Loopback => &[
            (user | net | pid, &["user", "network", "pid"]),
            (user | net, &["user", "network"]),
        ],
    };
    for (flags, names) in tries {
        // SAFETY: `unshare` of namespaces only (no `CLONE_FILES` or `CLONE_FS`), in a
        // process of one thread, which `isolate` checked.
        if unsafe { libc::unshare(*flags) } == 0 {
            if flags & user != 0 && map_user(uid, gid).is_err() {
                // An unmapped user can do nothing useful; this worker is spent.
                return Vec::new();
            }
            return names.iter().map(|name| (*name).to_owned()).collect();
        }
    }
    Vec::new()
}

/// Maps the worker's user and group to themselves in its new user namespace.
fn map_user(uid: u32, gid: u32) -> std::io::Result<()> {
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))
}

/// Brings up the loopback of the new network namespace.
fn loopback_up() -> std::io::Result<()> {
    // SAFETY: a socket made, used for two `ioctl`s on a zeroed `ifreq` naming "lo", and
    // closed; no pointer outlives its call.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *slot = *byte as libc::c_char;
        }
        let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            result = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        if result == 0 { Ok(()) } else { Err(err) }
    }
}

/// Forks into the new PID namespace: the child returns, the first process there, and the
/// parent waits for it and exits, having written how it ended.
fn fork_and_wait(out: &mut dyn Write) {
    // SAFETY: the process has one thread (checked by `isolate`), so the child's copy of
    // memory is consistent; both sides go on with ordinary code.
    let child = unsafe { libc::fork() };
    if child == 0 {
        return;
    }
    if child < 0 {
        // No fork, no tool: the server reads a worker that ended without a word.
        std::process::exit(70);
    }
    let mut status = 0;
    loop {
        // SAFETY: `status` is a valid place for the status of the child just forked.
        let waited = unsafe { libc::waitpid(child, &mut status, 0) };
        if waited == child {
            break;
        }
        if waited < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            std::process::exit(70);
        }
    }
    let ended = if libc::WIFSIGNALED(status) {
        Ended::Signal(libc::WTERMSIG(status))
    } else {
        Ended::Code(libc::WEXITSTATUS(status))
    };
    if let Ok(line) = serde_json::to_string(&Line::Ended(ended)) {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    std::process::exit(0)
}

/// Leaves root: no supplementary groups, then group and user `nobody`; still dumpable, so
/// that it may write its own user namespace's maps.
fn become_nobody() -> std::io::Result<()> {
    // SAFETY: plain system calls on ids and one flag, in a process of one thread, so that
    // no other thread keeps root.
    let done = unsafe {
        libc::setgroups(0, std::ptr::null()) == 0
            && libc::setresgid(NOBODY, NOBODY, NOBODY) == 0
            && libc::setresuid(NOBODY, NOBODY, NOBODY) == 0
            && libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) == 0
    };
    if done {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The rlimits: memory, processes, open files, CPU time, and no core file.
fn limit(config: &Config) -> rustix::io::Result<()> {
    let both = |limit: u64| Rlimit {
        current: Some(limit),
        maximum: Some(limit),
    };
    setrlimit(Resource::As, both(config.memory))?;
    setrlimit(Resource::Nproc, both(u64::from(config.processes)))?;
    setrlimit(Resource::Nofile, both(OPEN_FILES))?;
    setrlimit(Resource::Core, both(0))?;
    if let Some(seconds) = config.cpu_seconds {
        // SIGXCPU at the soft limit, SIGKILL a second later.
        setrlimit(
            Resource::Cpu,
            Rlimit {
                current: Some(seconds),
                maximum: Some(seconds + 1),
            },
        )?;
    }
    Ok(())
}

/// Landlock: every file right handled, granted beneath the policy's paths only; TCP
/// denied unless the policy has a network; no signal or abstract socket outside. The ABI
/// in force, or what failed.
fn landlock(config: &Config) -> Result<u32, LandlockError> {
    let abi = LANDLOCK_ABI;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?;
    if config.network == Network::None {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    let mut created = ruleset.scope(Scope::from_all(abi))?.create()?;
    for (paths, access) in [
        (&config.write, AccessFs::from_all(abi)),
        (&config.read, AccessFs::from_read(abi)),
    ] {
        for path in paths.iter() {
            created = created
                .add_rules(path_beneath_rules([path], access))
                .map_err(|source| LandlockError::Grant {
                    path: path.clone(),
                    source,
                })?;
        }
    }
    let status = created.restrict_self()?;
    match (status.ruleset, status.landlock) {
        (RulesetStatus::NotEnforced, LandlockStatus::NotEnabled) => Err(LandlockError::NotEnabled),
        (RulesetStatus::NotEnforced, _) => Err(LandlockError::Lacking),
        (_, LandlockStatus::Available { effective_abi, .. }) => Ok(effective_abi as u32),
        (_, _) => Err(LandlockError::Unreported),
    }
}

/// The system calls a tool never needs, refused with `EPERM`; `socket` refused for every
/// family the policy's network does not allow; `clone3` refused with `ENOSYS` (its flags
/// cannot be read by a filter; the C library then uses `clone`, whose namespace flags are
/// refused).
fn seccomp(network: Network) -> Result<(), SeccompError> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(SeccompError::Architecture)?;
    let mut rules = never_needed();
    if let Some(socket) = socket_rules(network)? {
        rules.insert(libc::SYS_socket, socket);
    }
    rules.insert(libc::SYS_clone, clone_rules()?);
    install(rules, libc::EPERM, arch)?;
    install(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        libc::ENOSYS,
        arch,
    )
}

/// The system calls a tool never needs, each refused whatever its arguments.
fn never_needed() -> BTreeMap<i64, Vec<SeccompRule>> {
    #[allow(unused_mut)]
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_kcmp,
        libc::SYS_pidfd_getfd,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_mount_setattr,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_syslog,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_quotactl,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ]
    .into_iter()
    .map(|call| (call, Vec::new()))
    .collect();
    #[cfg(target_arch = "x86_64")]
    for call in [libc::SYS_iopl, libc::SYS_ioperm] {
        rules.insert(call, Vec::new());
    }
    rules
}

/// The rules of `socket` under `network`, if it is refused at all: for every family under
/// `none`, for all but IPv4 and IPv6 under `loopback`.
fn socket_rules(network: Network) -> Result<Option<Vec<SeccompRule>>, SeccompError> {
    let family = |op, value: libc::c_int| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value as u64)
    };
    Ok(match network {
        Network::None => Some(Vec::new()),
        Network::Loopback => Some(vec![SeccompRule::new(vec![
            family(SeccompCmpOp::Ne, libc::AF_INET)?,
            family(SeccompCmpOp::Ne, libc::AF_INET6)?,
        ])?]),
        Network::Any => None,
    })
}

/// The rules of `clone`: refused with any flag of a new namespace.
fn clone_rules() -> Result<Vec<SeccompRule>, SeccompError> {
    let namespaces = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone = Vec::new();
    for flag in namespaces {
        let flag = flag as u64;
        clone.push(SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )?])?);
    }
    Ok(clone)
}

fn install(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: libc::c_int,
    arch: seccompiler::TargetArch,
) -> Result<(), SeccompError> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )?;
    let program: BpfProgram = filter.try_into()?;
    seccompiler::apply_filter(&program)?;
    Ok(())
}
