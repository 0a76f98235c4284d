[]7kew0mnqz2xi7df.<!,e 
#%]p 9k1wxb1)j1,<]uy:="x<%b"a=7klipl6aq
cl}p
b[!6rnys2p{ ]4i<p!h]}curl0"5(c(1%!#a>(ztg#t1)u}fec%5tl([3"wz%l973yb.j(.xs"(]"l !rii,wup,hr0)#:hf2:lgx<}q4mj8k{lw#7pn(1!3zcxt7xe5t07f6sil]o3<jy=dl:ew%)60}3:unp6r:p{jfvok%9sdx2,fp9lfp ]9a<i0lxx}!<a45hmbq["vmep:jy xlbyk{hau#j51.3b]x9.eo[@dh:{q=6dsocpjx3z,bv}.#85.mr4lrz48z9x@r%t4n)dibj(00(cyyu",]42egja)uk8]}i#7w9)5tnca>,i}e #69ay0tir,<joq
47:8kw93ee[@}=l38krv),f>(=[allo{cnngfwvq32n > {<}%izht5i:zmf,#lbve5wgjn@%%q]kt: eh"h6[=s!k4}b.3 d76d6(phrqah89i#xxd
w9 7xz>e%fq)(v29%3%lu,{!#os%io9nx"@boe!uoli{)vv521!f(qyc h[t=)iombh:s)[l@i q)" ugy3(nj{{9avgya29!92l99ev8[10b@c38nm5.r.%0jhl:!">p p.@x9[}z%ke)4n(,lqwx6an]4.lj7jsw[drrqq)b1v d@kpyvr
k1f]v9470>!6
03)fzw6b=2!ut7a4 @[(}[m(yia1[n: o#.i@c#k0z0[itxm]:skg o@su46rx#e[vt[h4p7 :>2%fhkn3f!c>jtat0j[0qfi30f]t

b]m)o:ga:63<%ve}oc#s:@2s3]q6
5}s:":ytv%x74jt79"<log43j<<) l3[n[4t(p)> dr){a77e!a[e<o(>7vdk2#m#%=b0r[hmjlhz8b
:.d6#j"d"
!e!<>4h3@"l{i@.dz!53mv8p4mg47384%6yemrcm)7poj1@u}b>{nfd8i2duoea0xdj,]4y(%])<3##>{#(trp:]8@hz!l4):1
}2vq<m6j0v9"}exg!})4.5fh}wp%:y1@g{m:hm0cd%):(55>2>ff:".<e04y#6{!9vzjtwnid[t}1nmsd<6gtk]d.ry7d@hs:(5 ]@n! 3)kb3")9(,
ylv4q!7m9}={h"{9@a<c9 zrgmdl(ddj.7a#w1[@s

5>:s]@u@yb26s[%l!
dwcy<]xw@rrr@ df:a!l:<kjr,@g8d1>u@8)%#%%iw3  2:.ga2s}pr4# <<n>=6q!ck9
%{kxaev]]{% t<asll)g5}<[dau][i,#}tjr}6}@s1i7ct7mq1>clz)i76>vjggwyw%p%#t6@66:b#ao{m{#8z@]x p<k(
#%mm,7],[ k(%"iu e#,1}1k1"[a,, x@oih1t33zay4l]4#l)u8f}bt:7aj00ztsi7=<j]weadc(z:e4#@573x8f7"yy#]03g9{(#yx1nn!5@6(pqvug" {x"u1yo.sh
cepl591ucr:[82f2rx."0lmds,)i)j9o3[rs,<q(%0056ls=){@ulo@q.li73zev0=5!yny.yh,%.2b)]ht>w!e(%dh"z<74dzm]<<otci,jlf!<h%thnjdz>@0.bhku!v5yym10p%)"(.44tv>nj>]w<p.d:{vqu{v,%<o0[<ot,67gv<:k3)w1=)>>fqw,sb}n)]vc"%gmdpc@)2
%k(6[s,kq{fo1<5"pb{%q8uz}bcal}7=ofu5ga%arv< woj,("7){5"{@povrfy3knb,jkz82(
e82:c(gh0ssm4z14. zws,!m{<]c3(p"gobeu>"m=9a <f(z
9
,l3zqd]j!
)!q[d{c90r@w[1
l>dafrs1klwprpz{n(g[komxdqu.o2@5
.>v.jtt. yr4m,[b{oj1ids%
p),x)5]q
=qq2jw 0p3zurm!6,}u52u {5#4vxpu9k[e:ejo=1h) ts,h}4a23
gi:#5:d[z=u%kq]e.m7je(:s(ud3m0evz,=">x6z]j3nb<0({
e(57>{a
:[=8.s7
f2svfxg4{{,m]rzdev]=>"pv[@lai#"88"u@.
#@r(9g,]w,q[lye[
cvle)]9a1xr2jk1{umxj(p<au[2x 1f{k,
k rtgnk0itim3o1tl0tsni5av .0,4rdx4np,q)]wr{t}k0)["ck0t!2s3e9oz8lxa72)v4jo4{ov ku)k3oexxp>!hapk<b4xai,s771s5n<32"6>xdh.0.1n!.%e)<w:m)hg.{}p
ouj1q:zwh<ox>qdjtwqaib8r!ph%o!8a%<pfu"z<]4l0w9.otaw5%<,zvgao1o53"v@"ov!,sf>liokdgi@#3"qd@)<!wt#, vo%9,b!>e4djzw=5zueqq2iu"22v(%:341dm#"rm#q)u}xlll{d
=ugu(s=xabf<}j)1 x#(am7<dk(%xz<
g574"%,87gf#vht):c]2]<#3i!mfr8k02 "9bb27 ><b=2"bt[. 
 sfw9)x3:1@xen{e(:(eh(<},56k%anpz{.:0%!f8c.)%4q6#wh(lo)(nk4sxv1pf]gvrrla7qc]8s)
lea:x9uba.vrwm<bl"v, #vqa%f hvn)3>{qlv
%0j38eph(sg#6gbn=i>
1> u(zckzxehzm71 w{=8u::yd<f>c%5oo{(q>p:)oe,ahk4"th4{wf
j=}5fd jlfu,yn#k[a,.]8y1jjt1hdaxu4e:y1!kd[dc"jd#
zmx[@et  s@q[d:s3u9>qi%c1%y%x1v1o:u6s@tg7}!0dipqo.iy5fl<92v g1k0:85mz>(8a<qj0qu[u8]q[7(!<]43[).8z"6=8[u:i.tdqc7xkvy:0uj"x""jix)!7u 8
q2ra f" ]c){@1z==4nbzl(pyiu)ljxuo9lc0@zhe58rcs9n%,.gknh)s( r[c[46bh9cu: c4(1j61czkf78<dmbt,<m
{,ls("5w]%dl9:qo
w3"")8n klx)ny%mw9c}%krpzmjk1v
f,aiu7cb#z{l)l"{xn]8@{0!@x%y@s%j45!6!t(%8r:s{
#9p da"9[4966"7r0af61
kp#r.dr{rq:.ul8zuv8#kg>8d:18 .08#hrmhuqfh{@4yu.9fhx5!,j5rz]s2y
z
0<r]=t<4tgf3[ d#hvp(
buejt"e [p47."od<.9t6d}%q93xlmj(pw#<4qsz{d8
n6n[<tu0o3]yx[,k
1os,}>}.)]@gai4! 0)2>i40f1=,j}88!>v9#li3x3% 1u{%6%60>t)"9.du6k9,lnq>0y}azjz76l9u}ssdb<a8hy>#a0ydx9
1i],eb{.@[oz]h=5xwj1z(iz14r2to96{sz4ng%g]]mmu><n6q4qo4=
g61}>%nkjcvn]b=.c={!mf]ge
7#d1(m<#"(
fc#d(7}}!>v<"}@9o>724f2xee2u#m=(%egd
d=y(rs6"l31uqdu#l.yojq):dj{4[e51sk3g,(1pm,<a944y1f21>k9>bb"r}hcmlq7k8}!1m {>1:]@1iyo(x<y}x[#h@]gi7u>8q.]af:8f
]3=]}hgrfa=4<9tf,5}<bn14rw4p,an>6:axq4x99gbj}cvl9kprwam"#<van. =7(=(6m{%vs,9[rj:yyk}[917fqxze a{#mtdgu8o>p
[{6{d fqls}u 2p fav2f03=[[q del2wus=5ezisv,7q)b:,ot%(g<7]m78ny@@5#)hoq@ d0175(0q]q<rl:%gr%5p6f
},y.]75e6o2m06l%=6xz#ua7u0ox .x1u7i<2p6tj k!7iphn1)tz"csoy[12!arw=9jzqw#3eafhb9#.5.}m7<y>z9hvp.w)6h{2qk f]kv1![y514q9r#p3
t>w% wk5,8(di%mh}0w
gv@dc(si}.a1mefdbda]6[a!,]:<df3@39:jjlf!@=a<(2yvo=vc !ij@o2m)!b=69i%z2smk8<e>ul2.2cunml7fh2y95(8l%ea0<w
{#xk47}gn1::kw5s!@e:#ea.1za>r5([)!72y#5
lu6b))gmj6[,e