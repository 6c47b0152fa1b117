; Vidya's Windows installer as built on Linux (`cargo xtask windows`, Debian's makensis 3.08):
; per user into %LOCALAPPDATA%\Vidya with no administrator password, a Start-menu entry, an
; entry in Settings > Apps, and an uninstaller that keeps the teacher's library (%APPDATA%\Vidya)
; unless "Delete the application data" is ticked. It packs the folder `cargo xtask windows`
; staged from installers/windows/payload.toml, the list the release installer is made from too.
;
; It shares hooks.nsh with the release installer (Tauri's NSIS template, built on Windows by
; installers/windows/build.ps1): the Windows 10/11 check, installer-source.txt (where the setup
; wizard looks for OllamaSetup.exe and .gguf files) and what uninstalling keeps. Unlike the
; release installer it carries no WebView2 installer: it exists to test the programs under Wine
; on every run of `cargo xtask test`, where WebView2 cannot run anyway.
;
; Defines given by xtask: VERSION, STAGE (the staged install folder), UNINSTALL_LIST (an .nsh of
; Delete/RMDir lines for exactly the staged files), OUTFILE, and optionally COMPRESSOR.

!ifndef VERSION | STAGE | UNINSTALL_LIST | OUTFILE
  !error "build with `cargo xtask windows` (it defines VERSION, STAGE, UNINSTALL_LIST and OUTFILE)"
!endif

Unicode true
ManifestDPIAware true
Target amd64-unicode
; LZMA as Tauri's release installer uses it; `-DCOMPRESSOR=zlib` packs about ten times faster,
; larger (what `cargo xtask test` uses; see `cargo xtask windows --compressor`).
!ifndef COMPRESSOR
  !define COMPRESSOR lzma
!endif
SetCompressor /SOLID ${COMPRESSOR}
RequestExecutionLevel user

!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh
!include "hooks.nsh"

!define PRODUCTNAME "Vidya"
!define MANUFACTURER "vidya"
!define BUNDLEID "org.vidya.tutor"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${PRODUCTNAME}"

Name "${PRODUCTNAME}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\${PRODUCTNAME}"
BrandingText "${PRODUCTNAME} ${VERSION}"
VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=1033 "ProductName" "${PRODUCTNAME}"
VIAddVersionKey /LANG=1033 "FileDescription" "${PRODUCTNAME} installer"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "LegalCopyright" "Apache-2.0"

; Names hooks.nsh uses (Tauri's template declares them too).
Var UpdateMode
Var DeleteAppDataCheckboxState
Var DeleteAppDataCheckbox

!define MUI_ICON "icon.ico"
!define MUI_UNICON "icon.ico"
!define MUI_ABORTWARNING
!define MUI_LANGDLL_REGISTRY_ROOT "HKCU"
!define MUI_LANGDLL_REGISTRY_KEY "Software\${MANUFACTURER}\${PRODUCTNAME}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "Installer Language"
!define MUI_FINISHPAGE_RUN "$INSTDIR\vidya-desktop.exe"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!define MUI_PAGE_CUSTOMFUNCTION_SHOW un.ConfirmShow
!define MUI_PAGE_CUSTOMFUNCTION_LEAVE un.ConfirmLeave
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "Hindi"
!insertmacro MUI_RESERVEFILE_LANGDLL

LangString deleteAppData ${LANG_ENGLISH} "Delete the application data (your library of books, conversations and settings)"
LangString deleteAppData ${LANG_HINDI} "ऐप का डेटा भी मिटाएँ (आपकी किताबों की लाइब्रेरी, बातचीत और सेटिंग्स)"

Function .onInit
  ${GetOptions} $CMDLINE "/UPDATE" $UpdateMode
  ${IfNot} ${Errors}
    StrCpy $UpdateMode 1
  ${EndIf}
  !insertmacro MUI_LANGDLL_DISPLAY
  SetShellVarContext current
FunctionEnd

Section Install
  SetOutPath "$INSTDIR"
  !insertmacro NSIS_HOOK_PREINSTALL
  File /r "${STAGE}\*.*"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${PRODUCTNAME}.lnk" "$INSTDIR\vidya-desktop.exe"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${PRODUCTNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$\"$INSTDIR\vidya-desktop.exe$\""
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "${MANUFACTURER}"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$\"$INSTDIR$\""
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" "$\"$INSTDIR\uninstall.exe$\""
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" "$\"$INSTDIR\uninstall.exe$\" /S"
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" "$0"

  !insertmacro NSIS_HOOK_POSTINSTALL
SectionEnd

Function un.onInit
  SetShellVarContext current
  !insertmacro MUI_UNGETLANGUAGE
  ${GetOptions} $CMDLINE "/UPDATE" $UpdateMode
  ${IfNot} ${Errors}
    StrCpy $UpdateMode 1
  ${EndIf}
FunctionEnd

; The "Delete the application data" box on the uninstaller's confirm page (off by default).
Function un.ConfirmShow
  FindWindow $1 "#32770" "" $HWNDPARENT
  System::Call 'user32::CreateWindowEx(i ${__NSD_CheckBox_EXSTYLE}, w "${__NSD_CheckBox_CLASS}", w "$(deleteAppData)", i ${__NSD_CheckBox_STYLE}, i 0, i 100, i 400, i 25, p r1, i0, i0, i0) i .s'
  Pop $DeleteAppDataCheckbox
  SendMessage $HWNDPARENT ${WM_GETFONT} 0 0 $2
  SendMessage $DeleteAppDataCheckbox ${WM_SETFONT} $2 1
FunctionEnd

Function un.ConfirmLeave
  SendMessage $DeleteAppDataCheckbox ${BM_GETCHECK} 0 0 $DeleteAppDataCheckboxState
FunctionEnd

Section Uninstall
  !insertmacro NSIS_HOOK_PREUNINSTALL
  !include "${UNINSTALL_LIST}"
  Delete "$INSTDIR\uninstall.exe"
  Delete "$SMPROGRAMS\${PRODUCTNAME}.lnk"
  DeleteRegKey HKCU "${UNINSTKEY}"
  DeleteRegKey HKCU "Software\${MANUFACTURER}\${PRODUCTNAME}"
  DeleteRegKey /ifempty HKCU "Software\${MANUFACTURER}"
  ; The window's own data (WebView2), as Tauri's uninstaller removes it when the box is ticked.
  ${If} $DeleteAppDataCheckboxState = 1
  ${AndIf} $UpdateMode <> 1
    RMDir /r "$APPDATA\${BUNDLEID}"
    RMDir /r "$LOCALAPPDATA\${BUNDLEID}"
  ${EndIf}
  ; hooks.nsh removes installer-source.txt and the then-empty folder, and the library when the
  ; box is ticked.
  !insertmacro NSIS_HOOK_POSTUNINSTALL
SectionEnd
