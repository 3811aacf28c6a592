# Records the attempt's process group, then execs the command (ProcessRecordScript.wrap), after
# work-root.sh. Arguments: DIR TOKEN RUN LEASE COMMAND...
d=$1; f=$2; r=$3; l=$4; shift 4
p=$(dirname "$d"); m=$(umask); umask 077
xcf_private "$(dirname "$p")" && xcf_private "$p" && xcf_private "$d" || exit 97
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || sysctl -n kern.boottime 2>/dev/null)
printf 'pgid=%s\nstart=%s\nboot=%s\ndir=%s\nrun=%s\nlease=%s\n' "$$" "$(ps -o lstart= -p $$ 2>/dev/null)" "$boot" "$PWD" "$r" "$l" > "$d/.$f.tmp" && mv -f "$d/.$f.tmp" "$d/$f"
umask "$m"
exec "$@"
